//! Regenerates the WORM manifest test vectors.
//!
//! ```text
//! cargo run -p krabka-remote-storage --example worm_vectors -- \
//!     [--update-doc docs/worm-format.md] [rust/krabka-remote-storage/tests/fixtures/worm]
//! ```
//!
//! With a directory, writes the fixture files there. With `--update-doc`,
//! rewrites every `<!-- vector: NAME -->` block of the document in place.
//! Otherwise prints the blocks. The `worm_vectors` test checks both.

#![allow(missing_docs)]

#[path = "../tests/worm/vectors.rs"]
mod vectors;

use std::{collections::BTreeMap, env, fs, path::PathBuf};

/// The body of a vector block, fence excluded.
fn block(value: &str) -> (&'static str, String) {
    if !value.starts_with('{') && !value.bytes().all(|b| b.is_ascii_hexdigit()) {
        // A signed note (exact, its trailing newline ends the block) or a
        // key.
        ("text", value.trim_end_matches('\n').to_owned())
    } else if value.bytes().all(|b| b.is_ascii_hexdigit()) {
        let lines: Vec<String> = value
            .as_bytes()
            .chunks(64)
            .map(|line| String::from_utf8_lossy(line).into_owned())
            .collect();
        ("text", lines.join("\n"))
    } else {
        ("json", value.to_owned())
    }
}

/// `doc` with the content of every known vector block replaced.
fn update(doc: &str, vectors: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        out.push(line.to_owned());
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- vector: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        let value = vectors
            .get(name)
            .ok_or_else(|| format!("the document names an unknown vector {name}"))?;
        let fence = lines.next().unwrap_or_default();
        if !fence.starts_with("```") {
            return Err(format!("vector {name} is not followed by a fence"));
        }
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
        }
        let (language, body) = block(value);
        out.push(format!("```{language}"));
        out.push(body);
        out.push("```".to_owned());
    }
    Ok(out.join("\n") + "\n")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut doc = None;
    let mut dir = None;
    let mut args = env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--update-doc" {
            doc = args.next().map(PathBuf::from);
        } else {
            dir = Some(PathBuf::from(arg));
        }
    }
    if let Some(dir) = dir {
        for (name, bytes) in vectors::fixture_files() {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&path, bytes)?;
            eprintln!("wrote {}", path.display());
        }
    }
    let named: BTreeMap<String, String> = vectors::named_vectors().into_iter().collect();
    if let Some(doc) = doc {
        let text = fs::read_to_string(&doc)?;
        fs::write(&doc, update(&text, &named)?)?;
        eprintln!("updated {}", doc.display());
    } else {
        for (name, value) in &named {
            let (language, body) = block(value);
            println!("<!-- vector: {name} -->\n```{language}\n{body}\n```\n");
        }
    }
    Ok(())
}
