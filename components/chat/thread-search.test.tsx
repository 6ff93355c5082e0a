import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { markedSnippet } from "./thread-search";

const render = (snippet: string, highlights: [number, number][]) => renderToStaticMarkup(<>{markedSnippet(snippet, highlights)}</>);

describe("a search hit's snippet", () => {
  it("marks each highlight and escapes the text around it", () => {
    expect(render("the <b>budget</b> is over budget", [[7, 13], [26, 32]])).toBe("the &lt;b&gt;<mark>budget</mark>&lt;/b&gt; is over <mark>budget</mark>");
    expect(render("今天天气很好", [[1, 4]])).toBe("今<mark>天天气</mark>很好");
  });

  it("ignores highlights out of order or past the end", () => {
    expect(render("abc def", [[4, 7], [0, 3], [5, 99]])).toBe("abc <mark>def</mark>");
  });
});
