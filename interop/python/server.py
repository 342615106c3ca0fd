"""An MCP server written with the official Python SDK (`mcp`, pinned in
requirements.txt), the interop peer for mcp-client's tests.

It speaks both eras: 2025-11-25 (initialize handshake, sessions, server-to-client
requests) and 2026-07-28 (stateless, server/discover, input_required rounds),
as the SDK negotiates them.

    python server.py stdio
    python server.py http [--host 127.0.0.1] [--port 8000] [--path /mcp]
                          [--json-response] [--stateless]

Everything it serves is deterministic, so tests can assert exact values:

* tools (paginated, PAGE_SIZE per page): `echo`, `add`, `add_structured`
  (structured output with an output schema), `slow_count` (progress
  notifications, then a result; long enough to cancel), `log_messages` (log
  notifications at several levels, filtered by `logging/setLevel`), `ask_name` (form elicitation), `summarize`
  (sampling), `fail` (a tool error), and `filler_00`..`filler_NN` so listing
  needs several pages;
* resources (paginated): `interop://static/readme` (text),
  `interop://static/logo` (binary), `interop://static/item/NN`; one template
  `interop://items/{item_id}`;
* prompts (paginated): `greet(name)`, `review_code(code, language)`, and
  `filler_prompt_NN`;
* completion for the `language` argument of `review_code` and for the
  `item_id` variable of the template.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    Completion,
    EmptyResult,
    ListPromptsResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
)
from pydantic import BaseModel

#: Items per page for every list method.
PAGE_SIZE = 5
#: Filler entries, so every list spans several pages.
FILLER_TOOLS = 12
FILLER_RESOURCES = 12
FILLER_PROMPTS = 7
LANGUAGES = ["python", "rust", "typescript", "go", "ruby"]
#: Log levels, least severe first (RFC 5424 order, as MCP uses).
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
#: The minimum level set by `logging/setLevel` (process-wide: one client per
#: process over stdio; shared by every session over HTTP).
_min_level = "debug"


def _page(items: list, params: PaginatedRequestParams | None) -> tuple[list, str | None]:
    """One page of `items` from the opaque cursor (a decimal offset here)."""
    cursor = params.cursor if params is not None else None
    try:
        start = int(cursor) if cursor else 0
    except ValueError:
        start = -1
    if start < 0 or start > len(items):
        raise MCPError(code=INVALID_PARAMS, message=f"invalid cursor {cursor!r}")
    end = start + PAGE_SIZE
    return items[start:end], (str(end) if end < len(items) else None)


class PagedServer(MCPServer):
    """MCPServer whose list methods return PAGE_SIZE items per page."""

    async def _handle_list_tools(self, ctx, params):  # noqa: D401 - SDK hook
        tools, cursor = _page(await self.list_tools(), params)
        return ListToolsResult(tools=tools, next_cursor=cursor)

    async def _handle_list_resources(self, ctx, params):
        resources, cursor = _page(await self.list_resources(), params)
        return ListResourcesResult(resources=resources, next_cursor=cursor)

    async def _handle_list_prompts(self, ctx, params):
        prompts, cursor = _page(await self.list_prompts(), params)
        return ListPromptsResult(prompts=prompts, next_cursor=cursor)


mcp = PagedServer(
    name="mcp-client-rs-python-peer",
    version="1.0.0",
    instructions="Interop peer for mcp-client-rs: deterministic tools, resources and prompts.",
)


# --- tools -------------------------------------------------------------------


@mcp.tool(description="Echo the message back as text.")
def echo(message: str) -> str:
    return message


@mcp.tool(description="Add two integers; the sum as text.")
def add(a: int, b: int) -> str:
    return str(a + b)


class Sum(BaseModel):
    """The structured result of add_structured."""

    a: int
    b: int
    sum: int


@mcp.tool(description="Add two integers; the result as structured content.")
def add_structured(a: int, b: int) -> Sum:
    return Sum(a=a, b=b, sum=a + b)


@mcp.tool(description="Count to `steps`, one progress notification per step, `delay_ms` apart.")
async def slow_count(steps: int, ctx: Context, delay_ms: int = 50) -> str:
    steps = max(0, min(steps, 1000))
    for i in range(1, steps + 1):
        await asyncio.sleep(max(0, min(delay_ms, 10_000)) / 1000)
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
    return f"counted to {steps}"


@mcp.tool(description="Send a log notification per level (debug, info, warning, error) at or above the level set.")
async def log_messages(ctx: Context) -> str:
    sent = 0
    for level in ["debug", "info", "warning", "error"]:
        if LEVELS.index(level) >= LEVELS.index(_min_level):
            await ctx.log(level, f"{level} message", logger_name="interop")
            sent += 1
    return f"logged {sent} messages"


async def _set_level(ctx, params: SetLevelRequestParams) -> EmptyResult:
    """`logging/setLevel` (legacy era): also makes the server declare `logging`."""
    global _min_level
    _min_level = params.level
    return EmptyResult()


mcp._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)


class Name(BaseModel):
    """What ask_name elicits."""

    name: str


def _ask_for_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool(description="Ask the user for their name (form elicitation), then greet them.")
def ask_name(who: Annotated[Name, Resolve(_ask_for_name)]) -> str:
    return f"Hello, {who.name}!"


def _sample_summary(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=100,
    )


@mcp.tool(description="Ask the client's model to summarize `text` (sampling); returns its answer.")
def summarize(text: str, answer: Annotated[object, Resolve(_sample_summary)]) -> str:
    content = getattr(answer, "content", None)
    return getattr(content, "text", None) or str(content)


@mcp.tool(description="Always fails with a tool error (isError: true).")
def fail(reason: str = "requested failure") -> str:
    raise ToolError(reason)


def _make_filler_tool(i: int):
    def filler(x: int = 0) -> str:
        return f"filler {i:02d}: {x}"

    filler.__name__ = f"filler_{i:02d}"
    return filler


for _i in range(FILLER_TOOLS):
    mcp.tool(name=f"filler_{_i:02d}", description=f"Filler tool {_i:02d} (pagination).")(_make_filler_tool(_i))


# --- resources ---------------------------------------------------------------


@mcp.resource("interop://static/readme", name="readme", mime_type="text/plain")
def readme() -> str:
    return "Interop peer for mcp-client-rs."


@mcp.resource("interop://static/logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return bytes(range(16))


def _make_static_item(i: int):
    def item() -> str:
        return f"static item {i:02d}"

    item.__name__ = f"item_{i:02d}"
    return item


for _i in range(FILLER_RESOURCES):
    mcp.resource(f"interop://static/item/{_i:02d}", name=f"item_{_i:02d}", mime_type="text/plain")(
        _make_static_item(_i)
    )


@mcp.resource("interop://items/{item_id}", name="item", mime_type="text/plain")
def item_by_id(item_id: str) -> str:
    return f"item {item_id}"


# --- prompts -----------------------------------------------------------------


@mcp.prompt(description="Greet someone by name.")
def greet(name: str) -> str:
    return f"Please greet {name} warmly."


@mcp.prompt(description="Review a piece of code.")
def review_code(code: str, language: str = "python") -> str:
    return f"Review this {language} code:\n{code}"


def _make_filler_prompt(i: int):
    def prompt() -> str:
        return f"filler prompt {i:02d}"

    prompt.__name__ = f"filler_prompt_{i:02d}"
    return prompt


for _i in range(FILLER_PROMPTS):
    mcp.prompt(name=f"filler_prompt_{_i:02d}", description=f"Filler prompt {_i:02d}.")(_make_filler_prompt(_i))


# --- completion --------------------------------------------------------------


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and ref.name == "review_code" and argument.name == "language":
        values = [lang for lang in LANGUAGES if lang.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    if isinstance(ref, ResourceTemplateReference) and argument.name == "item_id":
        values = [f"{i:02d}" for i in range(20) if f"{i:02d}".startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    return None


# --- entry point -------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="transport", required=True)
    sub.add_parser("stdio", help="serve over stdin/stdout")
    http = sub.add_parser("http", help="serve Streamable HTTP")
    http.add_argument("--host", default="127.0.0.1")
    http.add_argument("--port", type=int, default=8000)
    http.add_argument("--path", default="/mcp")
    http.add_argument("--json-response", action="store_true", help="answer POSTs with JSON, not SSE")
    http.add_argument("--stateless", action="store_true", help="no Mcp-Session-Id (legacy era)")
    args = parser.parse_args()
    if args.transport == "stdio":
        mcp.run("stdio")
    else:
        mcp.run(
            "streamable-http",
            host=args.host,
            port=args.port,
            streamable_http_path=args.path,
            json_response=args.json_response,
            stateless_http=args.stateless,
        )


if __name__ == "__main__":
    main()
