//! Skills through the host against the demo server in both eras: listed in
//! the one catalogue under qualified names with their origin, refreshed on
//! `resources/list_changed`, loaded and read (verified) from their origin
//! only.

mod support;

use mcp_client::skills::SkillError;
use mcp_host::{Host, HostError, HostEvent, ListKind};
use support::{next_matching, trigger_change, two_eras};

const PDF: &str = "skill://pdf-processing/SKILL.md";

fn skill_names(host: &Host) -> Vec<(String, String, String)> {
    let catalogue = host.catalogue();
    let mut v: Vec<_> = catalogue
        .skills
        .iter()
        .map(|s| (s.name.clone(), s.origin.clone(), s.item.uri.clone()))
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_join_the_catalogue_with_their_origin_in_both_eras_and_refresh_on_list_changed() {
    let host = Host::builder().start(&two_eras()).await;
    let names = skill_names(&host);
    for label in ["legacy", "modern"] {
        for (name, uri) in [
            ("pdf-processing", PDF),
            ("refunds", "skill://acme/billing/refunds/SKILL.md"),
            ("live-status", "skill://live-status/SKILL.md"),
        ] {
            let want = (format!("{label}__{name}"), label.to_owned(), uri.to_owned());
            assert!(names.contains(&want), "{want:?} missing from {names:?}");
        }
    }
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(host.catalogue().skill_collisions.is_empty());
    // Identity is (label, uri): the same URI from two servers is two skills.
    let catalogue = host.catalogue();
    let (a, b) = (
        catalogue.skill_at("legacy", PDF).unwrap(),
        catalogue.skill_at("modern", PDF).unwrap(),
    );
    assert_eq!(
        (a.name.as_str(), b.name.as_str()),
        ("legacy__pdf-processing", "modern__pdf-processing")
    );

    let mut events = host.events();
    for label in ["legacy", "modern"] {
        let event = "resources_list_changed";
        trigger_change(&host, &mut events, label, event, ListKind::Skills).await;
    }
    assert_eq!(skill_names(&host).len(), 6);

    // A reconnect drops the server's skills and lists them again.
    host.restart("modern").unwrap();
    for _ in 0..2 {
        next_matching(&mut events, "modern's skills change", |e| match e {
            HostEvent::CatalogueChanged {
                server,
                kind: ListKind::Skills,
            } if server == "modern" => Some(()),
            _ => None,
        })
        .await;
    }
    assert_eq!(skill_names(&host).len(), 6);
    assert!(host.catalogue().skill("modern__refunds").is_some());
    host.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_load_verified_and_read_files_from_their_origin_only() {
    let host = Host::builder().start(&two_eras()).await;
    for label in ["legacy", "modern"] {
        let skill = host
            .load_skill(&format!("{label}__pdf-processing"))
            .await
            .unwrap();
        assert_eq!(skill.origin(), label);
        assert!(skill.skill().is_verified());
        assert!(skill.skill().body().contains("# PDF processing"));
        let forms = host
            .read_skill_file(&skill, "references/FORMS.md")
            .await
            .unwrap();
        assert!(forms.text().unwrap().starts_with("# Forms"));
        let escape = host
            .read_skill_file(&skill, "../live-status/SKILL.md")
            .await;
        assert!(
            matches!(&escape, Err(HostError::Skill { server, source: SkillError::InvalidPath { .. } }) if server == label),
            "{escape:?}"
        );
        let unlisted = host.read_skill_file(&skill, "references/OTHER.md").await;
        assert!(
            matches!(
                &unlisted,
                Err(HostError::Skill {
                    source: SkillError::NotListed { .. },
                    ..
                })
            ),
            "{unlisted:?}"
        );
        let live = host.load_skill(&format!("{label}__live-status")).await;
        assert!(
            matches!(
                &live,
                Err(HostError::Skill {
                    source: SkillError::Unverifiable { .. },
                    ..
                })
            ),
            "{live:?}"
        );
    }
    assert!(matches!(
        host.load_skill("nobody__pdf-processing").await,
        Err(HostError::UnknownSkill(_))
    ));

    // A skill of `legacy` never reads through `modern`, which serves the
    // very same URI: once its origin is gone, the read fails.
    let skill = host.load_skill("legacy__pdf-processing").await.unwrap();
    host.remove("legacy").await.unwrap();
    let orphan = host.read_skill_file(&skill, "references/FORMS.md").await;
    assert!(
        matches!(&orphan, Err(HostError::UnknownServer(s)) if s == "legacy"),
        "{orphan:?}"
    );
    assert!(host.catalogue().skill_at("legacy", PDF).is_none());
    assert!(host.catalogue().skill_at("modern", PDF).is_some());
    host.close().await;
}
