import { describe, expect, it } from "vitest";
import { PROJECT_CLI_MODULES } from "./actions";
import { resolveModuleAllowList } from "./allow-list";

describe("the project_cli module allow-list", () => {
  it("defaults to every registered module", () => {
    expect(resolveModuleAllowList(undefined)).toEqual(PROJECT_CLI_MODULES);
    expect(PROJECT_CLI_MODULES).toEqual(expect.arrayContaining(["calendar", "contacts", "memory"]));
  });

  it("narrows to the configured modules", () => {
    expect(resolveModuleAllowList(" contacts, memory ,")).toEqual(["contacts", "memory"]);
  });

  it("refuses a module no one registered, naming it and the known ones", () => {
    expect(() => resolveModuleAllowList("calendar,agenda")).toThrow(
      `PROJECT_CLI_MODULES names unknown project_cli modules: agenda (known: ${PROJECT_CLI_MODULES.join(", ")})`,
    );
  });
});
