//! The skills extension (SEP-2640) end to end against the demo server, over
//! stdio (a real child process) and HTTP, in both eras: listing and getting
//! entries, verified loading, supporting files by relative path, directory
//! reads, a stale entry refreshed, and identity bound to the connection.

use mcp_testkit::demo as common;

use common::{ALL, Server};
use mcp_client::mcp_types::skills::{SkillEntry, is_directory};
use mcp_client::skills::{LoadOptions, SkillError};
use serde_json::json;

const PDF: &str = "skill://pdf-processing/SKILL.md";
const REFUNDS: &str = "skill://acme/billing/refunds/SKILL.md";
const LIVE: &str = "skill://live-status/SKILL.md";

fn find<'a>(entries: &'a [SkillEntry], uri: &str) -> &'a SkillEntry {
    entries
        .iter()
        .find(|e| e.uri == uri)
        .unwrap_or_else(|| panic!("{uri} is not listed"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_get_load_and_read_in_every_transport_and_era() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let entries = client.list_all_skills().await.expect("skills/list");
        assert_eq!(entries.len(), 3, "{via:?}");
        let pdf = find(&entries, PDF);
        assert_eq!(pdf.frontmatter["metadata"]["tags"], json!(["pdf", "forms"]));
        let got = client.get_skill(PDF).await.expect("skills/get");
        assert_eq!(&got, pdf, "{via:?}: skills/get agrees with the listing");

        let skill = client.load_skill(pdf).await.expect("load pdf-processing");
        assert!(skill.is_verified());
        assert_eq!(skill.root(), "skill://pdf-processing");
        assert!(skill.body().starts_with("\n# PDF processing"), "{via:?}");
        assert_eq!(skill.id().uri(), PDF);
        assert!(skill.id().is_from(&client));

        let forms = client
            .read_skill_file(&skill, "references/FORMS.md")
            .await
            .expect("read FORMS.md");
        assert!(forms.verified);
        assert_eq!(forms.uri, "skill://pdf-processing/references/FORMS.md");
        assert!(forms.text().is_some_and(|t| t.starts_with("# Forms")));
        let unlisted = client.read_skill_file(&skill, "references/OTHER.md").await;
        assert!(
            matches!(unlisted, Err(SkillError::NotListed { .. })),
            "{via:?}"
        );
        let escape = client
            .read_skill_file(&skill, "../live-status/SKILL.md")
            .await;
        assert!(
            matches!(escape, Err(SkillError::InvalidPath { .. })),
            "{via:?}"
        );

        // A SKILL.md whose frontmatter lists its keys in another order.
        let refunds = client.load_skill(find(&entries, REFUNDS)).await;
        assert!(refunds.is_ok(), "{via:?}: {refunds:?}");

        // The generated skill has no digests: refused unless opted in.
        let live = find(&entries, LIVE);
        let refused = client.load_skill(live).await;
        assert!(
            matches!(refused, Err(SkillError::Unverifiable { .. })),
            "{via:?}"
        );
        let opted = client
            .load_skill_with(live, LoadOptions::new().allow_unverified())
            .await
            .expect("opted-in load");
        assert!(!opted.is_verified());

        let children = client
            .read_all_directory("skill://pdf-processing")
            .await
            .expect("directory read");
        let dirs: Vec<&str> = children
            .iter()
            .filter(|r| is_directory(r))
            .map(|r| r.uri.as_str())
            .collect();
        assert_eq!(
            dirs,
            [
                "skill://pdf-processing/references",
                "skill://pdf-processing/templates"
            ]
        );
        let page = client
            .read_directory("skill://pdf-processing/templates", None)
            .await
            .expect("one page");
        assert_eq!(page.resources.len(), 1);

        let unknown = client.get_skill("skill://nope/SKILL.md").await;
        let Err(SkillError::Request(e)) = unknown else {
            panic!("{via:?}: {unknown:?}")
        };
        assert_eq!(e.remote_error().map(|o| o.code.get()), Some(-32602));
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_entry_fails_verification_and_a_refresh_recovers() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");
        let fresh = client.get_skill(PDF).await.expect("skills/get");
        let tamper = |f: &dyn Fn(&mut serde_json::Value)| -> SkillEntry {
            let mut v = serde_json::to_value(&fresh).expect("entry to json");
            f(&mut v);
            serde_json::from_value(v).expect("entry from json")
        };
        let digest = tamper(&|v| {
            v["resources"][0]["digest"] = json!(format!("sha256:{}", "0".repeat(64)));
        });
        let size = tamper(&|v| v["resources"][0]["size"] = json!(1));
        let front = tamper(&|v| v["frontmatter"]["description"] = json!("Exfiltrate credentials"));
        let err = client.load_skill(&digest).await.expect_err("digest");
        assert!(
            matches!(err, SkillError::DigestMismatch { .. }),
            "{via:?}: {err:?}"
        );
        let err = client.load_skill(&size).await.expect_err("size");
        assert!(
            matches!(err, SkillError::SizeMismatch { expected: 1, .. }),
            "{err:?}"
        );
        let err = client.load_skill(&front).await.expect_err("frontmatter");
        assert!(
            matches!(&err, SkillError::FrontmatterMismatch { field, .. } if field == "description"),
            "{err:?}"
        );
        assert!(err.is_verification_failure());

        let refreshed = client.refresh_skill(&front.uri).await.expect("refresh");
        assert_eq!(refreshed, fresh);
        client
            .load_skill(&refreshed)
            .await
            .expect("load after refresh");
        // A supporting file listed with a stale digest is refused on read.
        let stale_file = tamper(&|v| {
            v["resources"][1]["digest"] = digest
                .resources
                .as_ref()
                .map(|r| json!(r[0].digest))
                .unwrap_or_default()
        });
        let skill = client
            .load_skill(&stale_file)
            .await
            .expect("SKILL.md itself is fine");
        let err = client
            .read_skill_file(&skill, "references/FORMS.md")
            .await
            .expect_err("stale FORMS.md digest");
        assert!(matches!(err, SkillError::DigestMismatch { .. }), "{err:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loaded_skill_reads_only_through_its_own_connection() {
    let server = Server::start(common::Via::StdioLegacy).await;
    let a = server.builder().connect().await.expect("connect a");
    let b = server.builder().connect().await.expect("connect b");
    let entry = a.get_skill(PDF).await.expect("skills/get");
    let skill = a.load_skill(&entry).await.expect("load on a");
    let err = b
        .read_skill_file(&skill, "references/FORMS.md")
        .await
        .expect_err("b did not load it");
    assert!(matches!(err, SkillError::OtherConnection { .. }), "{err:?}");
    let same_uri_on_b = b.load_skill(&entry).await.expect("load on b");
    assert_ne!(same_uri_on_b.id(), skill.id(), "same uri, other connection");
    assert!(
        a.clone()
            .read_skill_file(&skill, "references/FORMS.md")
            .await
            .is_ok()
    );
    a.close().await;
    b.close().await;
}
