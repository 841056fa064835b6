#!/usr/bin/env node
// A starter adapter for optchat-spec in JavaScript (Node 20, no packages):
// it speaks protocol 2 of bridge/PROTOCOL.md on stdin and stdout.
//
//   optchat-spec corpus --engine 'node bridge.mjs' --only empty_chat --only 'refused_kind_*'
//
// Out of the box it answers the header, refuses messages of unknown kinds
// (SPEC 4.1, rule `kind`), renders the empty chat (SPEC 3), and answers every
// other event `unsupported`: `empty_chat` agrees, and the bridge reports a
// scenario as SKIPPED at the first event your engine does not take yet.
// docs/first-engine.md gives an order in which to make them agree.
import { createInterface } from "node:readline";

const KINDS = new Set(["user", "unii", "tool", "echo", "work", "note"]); // SPEC 1

// The state after an event, as every answer gives it (PROTOCOL.md, "Answers
// to events"). The stub takes no event, so its state stays the empty chat's.
function state() {
  return {
    size: 0, shrinking: false, merges: [], cmerges: [],
    view_digest: 0, cview_digest: 0, queue: [], queue_waiting: [],
  };
}

function answer(request) {
  if ("format" in request) {
    // The header: set up a new chat with request.constants (SPEC 7) here,
    // dropping the last one. Add `profile` if your engine deviates from SPEC
    // on purpose (SPEC 10). `sessions: true`: the next scenario's header
    // comes after the final detail request, in this same process, so that a
    // corpus starts it once per job and a shrink (hundreds of replays) once.
    return { ready: true, protocol: 2, engine: "starter-node 0", sessions: true };
  }
  if (request.detail) {
    // The whole state after the last event: here, the empty chat's.
    const empty = "<chat>\n</chat>";
    return { view: [], cview: [], render: empty, render_timed_out: empty, contexts: [] };
  }
  if (request.event === "message" && !KINDS.has(request.kind)) {
    // A refused event changes nothing: the unchanged state and the rule.
    return { ...state(), refused: "kind" };
  }
  // Plug your engine in here: apply `request` (its `event`, `at` and
  // fields) and answer state() of your engine, plus `refused` naming SPEC
  // 4.1's rule when the event breaks one.
  return { unsupported: `${request.event} events: not handled by the starter adapter yet` };
}

// One answer per line, in order, written before the next line is read.
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + "\n");
}
