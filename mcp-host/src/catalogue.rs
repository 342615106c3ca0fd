//! One catalogue of every server's tools, prompts, resources, resource
//! templates and skills, each tagged with its origin (the host-assigned
//! server label, never the server's self-reported name), tools, prompts and
//! skills under collision-free qualified names ([`crate::naming`]).
//!
//! The catalogue is an immutable snapshot, rebuilt whenever a server's
//! listing changes (a `list_changed` notification in either era, a connect
//! or reconnect, a removal) and announced with
//! [`HostEvent::CatalogueChanged`](crate::HostEvent::CatalogueChanged).
//!
//! # Skills
//!
//! Skill entries (`skills/list`, SEP-2640) are listed from servers that
//! declare the extension, without reading any skill file, and named like
//! prompts: `label__name` (a skill's `name` is a label, not an identifier;
//! an entry without one is named by its URI). Their identity is (origin
//! label, URI): [`Catalogue::skill_at`]. They are listed again on
//! `resources/list_changed` and on reconnect
//! ([`ListKind::Skills`](crate::ListKind::Skills)). Loading a skill and
//! reading its files goes through [`Host::load_skill`](crate::Host::load_skill)
//! and [`Host::read_skill_file`](crate::Host::read_skill_file), always to the
//! skill's origin, so a skill from one server can never make the host read
//! from another.

use std::collections::HashMap;

use mcp_client::mcp_types::prompts::Prompt;
use mcp_client::mcp_types::resources::{Resource, ResourceTemplate};
use mcp_client::mcp_types::skills::SkillEntry;
use mcp_client::mcp_types::tools::Tool;

use crate::config::ToolRules;
use crate::naming::{Collision, NamingPolicy, assign};

/// What one server listed (unfiltered).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Listing {
    /// `tools/list`.
    pub tools: Vec<Tool>,
    /// `prompts/list`.
    pub prompts: Vec<Prompt>,
    /// `resources/list`.
    pub resources: Vec<Resource>,
    /// `resources/templates/list`.
    pub templates: Vec<ResourceTemplate>,
    /// `skills/list` (entries only: no skill file is read).
    pub skills: Vec<SkillEntry>,
}

/// A tool, prompt or skill under its qualified name.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Named<T> {
    /// The collision-free qualified name (`label__name`).
    pub name: String,
    /// The label of the server it came from.
    pub origin: String,
    /// The item as the server listed it (with its own name).
    pub item: T,
}

/// A resource or template with its origin.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Sourced<T> {
    /// The label of the server it came from.
    pub origin: String,
    /// The item as the server listed it.
    pub item: T,
}

/// The catalogue of all ready servers, in server order then listing order.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Catalogue {
    /// Tools kept by each server's filters.
    pub tools: Vec<Named<Tool>>,
    /// Prompts.
    pub prompts: Vec<Named<Prompt>>,
    /// Resources.
    pub resources: Vec<Sourced<Resource>>,
    /// Resource templates.
    pub templates: Vec<Sourced<ResourceTemplate>>,
    /// Tool names two entries wanted (all kept, renamed, reported).
    pub tool_collisions: Vec<Collision>,
    /// Prompt names two entries wanted.
    pub prompt_collisions: Vec<Collision>,
    /// Skill entries, named `label__name`.
    pub skills: Vec<Named<SkillEntry>>,
    /// Skill names two entries wanted.
    pub skill_collisions: Vec<Collision>,
    tool_index: HashMap<String, usize>,
    prompt_index: HashMap<String, usize>,
    skill_index: HashMap<String, usize>,
}

/// One server's part of a catalogue build.
pub(crate) struct Part<'a> {
    pub(crate) label: &'a str,
    pub(crate) rules: &'a ToolRules,
    pub(crate) listing: &'a Listing,
}

impl Catalogue {
    /// Builds the catalogue of `parts`, in order.
    pub(crate) fn build(policy: &NamingPolicy, parts: &[Part<'_>]) -> Catalogue {
        let tools: Vec<(&str, &Tool)> = parts
            .iter()
            .flat_map(|p| {
                let keep = p.listing.tools.iter().filter(|t| p.rules.keeps(t));
                keep.map(|t| (p.label, t))
            })
            .collect();
        let prompts: Vec<(&str, &Prompt)> = parts
            .iter()
            .flat_map(|p| p.listing.prompts.iter().map(|x| (p.label, x)))
            .collect();
        let skills: Vec<(&str, &SkillEntry)> = parts
            .iter()
            .flat_map(|p| p.listing.skills.iter().map(|x| (p.label, x)))
            .collect();
        let (tools, tool_collisions) = named(policy, tools, |t| t.name.clone());
        let (prompts, prompt_collisions) = named(policy, prompts, |p| p.name.clone());
        let (skills, skill_collisions) =
            named(policy, skills, |s| s.name().unwrap_or(&s.uri).to_owned());
        let resources = sourced(parts, |l| &l.resources);
        let templates = sourced(parts, |l| &l.templates);
        Catalogue {
            tool_index: index(&tools),
            prompt_index: index(&prompts),
            skill_index: index(&skills),
            tools,
            prompts,
            resources,
            templates,
            skills,
            tool_collisions,
            prompt_collisions,
            skill_collisions,
        }
    }

    /// The tool with this qualified name.
    pub fn tool(&self, name: &str) -> Option<&Named<Tool>> {
        self.tool_index.get(name).map(|&i| &self.tools[i])
    }

    /// The prompt with this qualified name.
    pub fn prompt(&self, name: &str) -> Option<&Named<Prompt>> {
        self.prompt_index.get(name).map(|&i| &self.prompts[i])
    }

    /// The skill entry with this qualified name.
    pub fn skill(&self, name: &str) -> Option<&Named<SkillEntry>> {
        self.skill_index.get(name).map(|&i| &self.skills[i])
    }

    /// The skill entry of `origin` whose `SKILL.md` is at `uri`: a skill's
    /// identity is (server label, URI), never the URI alone.
    pub fn skill_at(&self, origin: &str, uri: &str) -> Option<&Named<SkillEntry>> {
        self.skills
            .iter()
            .find(|s| s.origin == origin && s.item.uri == uri)
    }

    /// The tools of one server.
    pub fn tools_of<'a>(&'a self, origin: &'a str) -> impl Iterator<Item = &'a Named<Tool>> + 'a {
        self.tools.iter().filter(move |t| t.origin == origin)
    }
}

/// Every item `items` picks from each part, with its origin.
fn sourced<T: Clone>(parts: &[Part<'_>], items: impl Fn(&Listing) -> &Vec<T>) -> Vec<Sourced<T>> {
    parts
        .iter()
        .flat_map(|p| {
            items(p.listing).iter().map(|item| Sourced {
                origin: p.label.to_owned(),
                item: item.clone(),
            })
        })
        .collect()
}

/// Qualified name to position.
fn index<T>(items: &[Named<T>]) -> HashMap<String, usize> {
    items
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.clone(), i))
        .collect()
}

fn named<T: Clone>(
    policy: &NamingPolicy,
    items: Vec<(&str, &T)>,
    name: impl Fn(&T) -> String,
) -> (Vec<Named<T>>, Vec<Collision>) {
    let raw: Vec<String> = items.iter().map(|(_, t)| name(t)).collect();
    let keys: Vec<(&str, &str)> = items
        .iter()
        .zip(&raw)
        .map(|((l, _), n)| (*l, n.as_str()))
        .collect();
    let (names, collisions) = assign(policy, &keys);
    let out = items
        .into_iter()
        .zip(names)
        .map(|((label, item), name)| Named {
            name,
            origin: label.to_owned(),
            item: item.clone(),
        })
        .collect();
    (out, collisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue of two servers, `a` and `b`, with default naming.
    fn build_ab(a: (&ToolRules, &Listing), b: (&ToolRules, &Listing)) -> Catalogue {
        let part = |label, (rules, listing)| Part {
            label,
            rules,
            listing,
        };
        let parts = [part("a", a), part("b", b)];
        Catalogue::build(&NamingPolicy::default(), &parts)
    }

    fn tool(name: &str, read_only: bool) -> Tool {
        serde_json::from_value(serde_json::json!({
            "name": name, "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": read_only}
        }))
        .unwrap()
    }

    #[test]
    fn origins_filters_and_lookup() {
        let a = Listing {
            tools: vec![tool("echo", true), tool("rm", false)],
            ..Listing::default()
        };
        let b = Listing {
            tools: vec![tool("echo", false)],
            ..Listing::default()
        };
        let ro = ToolRules {
            read_only: true,
            ..ToolRules::default()
        };
        let all = ToolRules::default();
        let c = build_ab((&ro, &a), (&all, &b));
        let names: Vec<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a__echo", "b__echo"]);
        let b_echo = c.tool("b__echo").unwrap();
        assert_eq!(
            (b_echo.origin.as_str(), b_echo.item.name.as_str()),
            ("b", "echo")
        );
        assert!(c.tool("a__rm").is_none(), "filtered tools are not routable");
        assert!(c.skills.is_empty());
        assert_eq!(c.tools_of("a").count(), 1);
    }

    fn skill(uri: &str, name: &str) -> SkillEntry {
        serde_json::from_value(serde_json::json!({
            "uri": uri, "frontmatter": {"name": name, "description": "d"}
        }))
        .unwrap()
    }

    #[test]
    fn skills_are_named_by_origin_kept_on_collision_and_found_by_origin_and_uri() {
        let a = Listing {
            skills: vec![
                skill("skill://x/SKILL.md", "dup"),
                skill("skill://y/SKILL.md", "dup"),
            ],
            ..Listing::default()
        };
        let b = Listing {
            skills: vec![skill("skill://x/SKILL.md", "dup")],
            ..Listing::default()
        };
        let all = ToolRules::default();
        let c = build_ab((&all, &a), (&all, &b));
        assert_eq!(c.skills.len(), 3, "no entry is dropped");
        let names: std::collections::HashSet<&str> =
            c.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 3, "qualified names are unique: {names:?}");
        assert!(!c.skill_collisions.is_empty(), "the collision is reported");
        for s in &c.skills {
            assert_eq!(c.skill(&s.name).unwrap().item.uri, s.item.uri);
        }
        let bx = c.skill_at("b", "skill://x/SKILL.md").unwrap();
        assert_eq!((bx.origin.as_str(), bx.name.as_str()), ("b", "b__dup"));
        assert_eq!(c.skill_at("a", "skill://x/SKILL.md").unwrap().origin, "a");
        assert!(c.skill_at("b", "skill://y/SKILL.md").is_none());
    }
}
