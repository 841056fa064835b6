//! A starter adapter for optchat-spec in Rust (the standard library only):
//! it speaks protocol 2 of bridge/PROTOCOL.md on stdin and stdout.
//!
//!     cargo build --release && optchat-spec corpus --engine target/release/bridge \
//!         --only empty_chat --only 'refused_kind_*'
//!
//! Out of the box it answers the header, refuses messages of unknown kinds
//! (SPEC 4.1, rule `kind`), renders the empty chat (SPEC 3), and answers every
//! other event `unsupported`: `empty_chat` agrees, and the bridge reports a
//! scenario as SKIPPED at the first event your engine does not take yet.
//! docs/first-engine.md gives an order in which to make them agree.
use std::io::{self, BufRead, Write};

const KINDS: [&str; 6] = ["user", "unii", "tool", "echo", "work", "note"]; // SPEC 1

/// The state after an event, as every answer gives it (PROTOCOL.md, "Answers
/// to events"). The stub takes no event, so its state stays the empty chat's.
const EMPTY_STATE: &str = concat!(
    r#""size": 0, "shrinking": false, "merges": [], "cmerges": [], "view_digest": 0, "#,
    r#""cview_digest": 0, "queue": [], "queue_waiting": []"#
);

/// The top-level fields of one JSON object, each value as its JSON text. A
/// real adapter would use a JSON library (serde_json); this keeps to std.
fn fields(line: &str) -> Vec<(String, String)> {
    let (mut found, mut depth, mut start, mut key) = (Vec::new(), 0, 0, String::new());
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in line.char_indices() {
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => (depth, start) = (depth + 1, if depth == 0 { i + 1 } else { start }),
            ':' if depth == 1 => {
                (key, start) = (line[start..i].trim().trim_matches('"').into(), i + 1)
            }
            ',' | '}' | ']' if depth == 1 => {
                found.push((key.clone(), line[start..i].trim().to_string()));
                (start, depth) = (i + 1, if c == ',' { 1 } else { 0 });
            }
            '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    found
}

fn answer(line: &str) -> String {
    let fields = fields(line);
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim_matches('"'))
    };
    if get("format").is_some() {
        // The header: set up a new chat with its "constants" (SPEC 7) here,
        // dropping the last one. Add "profile" if your engine deviates from
        // SPEC on purpose (SPEC 10). "sessions": the next scenario's header
        // comes after the final detail request, in this same process, so that
        // a corpus starts it once per job and a shrink (hundreds of replays) once.
        return r#"{"ready": true, "protocol": 2, "engine": "starter-rust 0", "sessions": true}"#
            .into();
    }
    if get("detail").is_some() {
        // The whole state after the last event: here, the empty chat's.
        let empty = r#""<chat>\n</chat>""#;
        return format!(
            r#"{{"view": [], "cview": [], "render": {empty}, "render_timed_out": {empty}, "contexts": []}}"#
        );
    }
    if get("event") == Some("message") && !KINDS.contains(&get("kind").unwrap_or("")) {
        // A refused event changes nothing: the unchanged state and the rule.
        return format!(r#"{{{EMPTY_STATE}, "refused": "kind"}}"#);
    }
    // Plug your engine in here: apply the event (its "event", "at" and other
    // fields) and answer your engine's state as EMPTY_STATE lists it, plus
    // "refused" naming SPEC 4.1's rule when the event breaks one.
    let event = get("event").unwrap_or("this").replace(['"', '\\'], "");
    format!(r#"{{"unsupported": "{event} events: not handled by the starter adapter yet"}}"#)
}

/// One answer per line, in order, flushed before the next line is read.
fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        writeln!(out, "{}", answer(&line?))?;
        out.flush()?;
    }
    Ok(())
}
