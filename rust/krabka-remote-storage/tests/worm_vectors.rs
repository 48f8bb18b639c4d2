//! The test vectors of `docs/worm-format.md` and the fixtures in
//! `tests/fixtures/worm/` are what the code computes, and the negative
//! vectors fail the way the document says.
//!
//! Regenerate with
//! `cargo run -p krabka-remote-storage --example worm_vectors -- rust/krabka-remote-storage/tests/fixtures/worm`
//! and paste the printed blocks into the document.

#[path = "worm/vectors.rs"]
mod vectors;

use {
    krabka_remote_storage::{
        ChainWalk, ManifestSigner, SegmentManifest, WormChainRecord, verify_manifest_bytes,
    },
    std::{
        collections::{BTreeMap, BTreeSet},
        fs,
        path::{Path, PathBuf},
    },
    vectors::*,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/worm")
}

fn document() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/worm-format.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Every `<!-- vector: NAME -->` block of the document: name → content.
fn document_vectors(doc: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- vector: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "vector {name} is not followed by a fence"
        );
        let mut content = String::new();
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            content.push_str(line);
            content.push('\n');
        }
        assert!(
            out.insert(name.to_owned(), content).is_none(),
            "vector {name} appears twice"
        );
    }
    out
}

fn files_under(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, base, out);
        } else {
            let name = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.insert(name);
        }
    }
}

#[test]
fn rfc8032_test_keys_derive_their_published_public_keys() {
    assert_eq!(hex(&signer_1().public_key()), KEY_1_PUBLIC);
    assert_eq!(hex(&signer_2().public_key()), KEY_2_PUBLIC);
}

#[test]
fn document_vectors_are_what_the_code_computes() {
    let doc = document();
    let in_doc = document_vectors(&doc);
    let computed: BTreeMap<String, String> = named_vectors().into_iter().collect();
    assert_eq!(
        in_doc.keys().collect::<Vec<_>>(),
        computed.keys().collect::<Vec<_>>(),
        "the document's vector names differ from the generator's"
    );
    for (name, value) in &computed {
        let documented = &in_doc[name];
        if name.ends_with("-pretty") {
            assert_eq!(minify(documented), minify(value), "vector {name}");
        } else if name.ends_with("-note") {
            assert_eq!(documented, value, "vector {name}");
        } else {
            let stripped: String = documented.split_whitespace().collect();
            assert_eq!(&stripped, value, "vector {name}");
        }
    }
}

#[test]
fn document_pretty_example_is_the_stored_manifest_reindented() {
    let in_doc = document_vectors(&document());
    let stored = fs::read(fixtures().join("manifest-0.json")).unwrap();
    assert_eq!(minify(&in_doc["manifest-0-pretty"]).into_bytes(), stored);
}

#[test]
fn fixture_files_are_what_the_generator_writes() {
    let expected = fixture_files();
    let mut on_disk = BTreeSet::new();
    files_under(&fixtures(), &fixtures(), &mut on_disk);
    assert_eq!(
        on_disk,
        expected.keys().cloned().collect::<BTreeSet<_>>(),
        "fixture file set differs from the generator's"
    );
    for (name, bytes) in expected {
        assert_eq!(fs::read(fixtures().join(&name)).unwrap(), bytes, "{name}");
    }
}

#[test]
fn fixture_chain_verifies_with_both_rotation_keys() {
    let trusted = trusted();
    let mut walk = None;
    let mut heads = Vec::new();
    for name in ["manifest-0.json", "manifest-1.json", "manifest-2.json"] {
        let bytes = fs::read(fixtures().join(name)).unwrap();
        let verified = verify_manifest_bytes(&bytes, &trusted).unwrap();
        let walk = walk.get_or_insert_with(|| ChainWalk::new(verified.body().chain.epoch_id));
        heads.push(walk.accept(verified.body()).unwrap());
        assert_eq!(verified.head(), *heads.last().unwrap());
    }
    let in_doc = document_vectors(&document());
    let head_0: String = in_doc["manifest-0-head"].split_whitespace().collect();
    let head_1: String = in_doc["manifest-1-head"].split_whitespace().collect();
    assert_eq!(heads[0].to_string(), head_0);
    assert_eq!(heads[1].to_string(), head_1);
}

#[test]
fn negative_manifest_fixtures_fail_as_documented() {
    let doc = document();
    let trusted = trusted();
    for negative in negative_manifests() {
        let bytes = fs::read(fixtures().join(format!("negative/{}.json", negative.name))).unwrap();
        let err = verify_manifest_bytes(&bytes, &trusted)
            .expect_err(&format!("{} verified", negative.name));
        assert!(
            (negative.expect)(&err),
            "{}: unexpected error {err:?}",
            negative.name
        );
        assert!(
            doc.contains(&format!("`negative/{}.json`", negative.name)),
            "{} is not listed in the document",
            negative.name
        );
    }
}

#[test]
fn negative_chains_fail_as_documented() {
    let doc = document();
    for negative in negative_chains() {
        let manifests: Vec<SegmentManifest> = negative
            .manifests
            .iter()
            .map(|(name, manifest)| {
                let stored = fs::read(fixtures().join(format!("{name}.json"))).unwrap();
                assert_eq!(stored, manifest.to_bytes(), "{name}");
                SegmentManifest::from_bytes(&stored).unwrap()
            })
            .collect();
        let err = walk(&manifests).expect_err(negative.name);
        assert!((negative.expect)(&err), "{}: {err:?}", negative.name);
        assert!(
            doc.contains(&format!("| {} |", negative.name)),
            "chain case {} is not listed in the document",
            negative.name
        );
    }
}

#[test]
fn pkcs8_fixtures_load_as_key_1() {
    for name in ["test-key-1.pk8", "test-key-1.pem"] {
        let signer = ManifestSigner::from_pkcs8_file(&fixtures().join(name), KEY_ID_1).unwrap();
        assert_eq!(hex(&signer.public_key()), KEY_1_PUBLIC, "{name}");
    }
}

#[test]
fn receipt_vector_decodes_and_continues_the_chain() {
    let receipt = receipt_1();
    let bytes = receipt.to_custom_metadata();
    assert!(bytes.as_bytes().len() <= WormChainRecord::MAX_BYTES);
    let decoded = WormChainRecord::from_custom_metadata(bytes.as_bytes())
        .unwrap()
        .unwrap();
    assert_eq!(decoded, receipt);
    assert_eq!(decoded.next_stamp(), Some(manifest_2().body.chain));
}
