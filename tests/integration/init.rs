//! `git skill init`: the agents' settings merged into what a repository (or a user) already
//! has, a dry run that writes nothing, a second run that changes nothing, an uninstall that
//! takes out only what init added, broken and linked settings, and hooks that work as written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::common::Sandbox;

/// Every file under `dir` (but `.git/objects`) with its content: what a command changed.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                if !p.ends_with(".git/objects") {
                    stack.push(p);
                }
            } else if t.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(p, target.into_os_string().into_encoded_bytes());
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(
        &std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

/// A repository a team already uses with Claude and Codex: settings of their own, a hook of
/// their own, a commented Codex config, a skill with records but no `.skillopt/.gitignore`.
fn team_repo() -> Sandbox {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/settings.json",
        r#"{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}]}]
  }
}
"#,
    );
    sb.write(
        ".codex/config.toml",
        "# our model\nmodel = \"o4\"\n\n[features]\n# keep this\nweb_search = true\n",
    );
    sb.write(
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: How to deploy.\n---\n\n# Deploy\n",
    );
    sb.write(".claude/skills/deploy/.skillopt/signals/pending.jsonl", "");
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&["commit", "-qm", "init"]).assert_ok();
    sb
}

/// Files `init --agent all` creates in the team's repository (which has Claude's and Codex's
/// settings but not their skill-recorder skills) and `--uninstall` removes.
const CREATED: [&str; 6] = [
    ".qwen/settings.json",
    ".gemini/settings.json",
    ".codex/hooks.json",
    ".github/hooks/git-skill.json",
    ".claude/skills/skill-recorder/SKILL.md",
    ".agents/skills/skill-recorder/SKILL.md",
];

fn enabled(sb: &Sandbox) -> String {
    sb.git(&["config", "--local", "--get", "skill.autoSkill.enabled"])
        .stdout
        .trim()
        .to_owned()
}

#[test]
fn dry_run_shows_every_change_as_a_diff_and_writes_nothing() {
    let sb = team_repo();
    let before = tree(&sb.repo());
    let run = sb.run(&["init", "--agent", "all", "--dry-run"]);
    run.assert_ok();
    assert_eq!(tree(&sb.repo()), before, "a dry run wrote something");
    let out = &run.stdout;
    // A diff of the existing file against its merge, and of each new file from /dev/null.
    crate::snapshot::assert_text(
        &sb,
        "init-dry-run-shows-every-change-as-a-diff-and-writes-nothing-401",
        out,
    );
    assert_eq!(enabled(&sb), "");
    super::snapshot::assert_snapshot("init-dry-run-all", &super::snapshot::show(&sb, &run));
}

#[test]
fn init_merges_then_a_second_run_changes_nothing_and_uninstall_takes_out_only_its_own() {
    let sb = team_repo();
    let original = tree(&sb.repo());
    let run = sb.run(&["init", "--agent", "all"]);
    run.assert_ok();
    assert_eq!(run.stdout, "", "status goes to stderr");
    crate::snapshot::assert_snapshot(
        "init-init-merges-then-a-second-run-changes-nothing-and-uninstall-takes-out-only-its-own-1",
        &crate::snapshot::show(&sb, &run),
    );

    // Claude: its own keys and hook kept, ours added with the matcher every tool needs.
    let claude = json_file(&sb.repo().join(".claude/settings.json"));
    assert_eq!(claude["permissions"], json!({"allow": ["Bash(npm test)"]}));
    let post = claude["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2, "{claude:#}");
    assert_eq!(post[0]["hooks"][0]["command"], "./fmt.sh");
    assert_eq!(post[1]["matcher"], "*");
    // The binary by its absolute path: a PATH the agent's settings set does not choose it.
    let command = post[1]["hooks"][0]["command"].as_str().unwrap();
    let bin = std::fs::canonicalize(crate::common::BIN).unwrap();
    assert!(
        command.starts_with(&format!("g='{}'; ", bin.display()))
            && command.ends_with("exec \"$g\" hook agent --agent claude"),
        "{command}"
    );
    assert_eq!(
        claude["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        hook_command("claude")
    );
    // The first content is kept beside it.
    assert_eq!(
        std::fs::read(sb.repo().join(".claude/settings.json.git-skill.bak")).unwrap(),
        original[&sb.repo().join(".claude/settings.json")]
    );
    // Qwen ends a headless session with Stop; Gemini's tool event is AfterTool.
    let qwen = json_file(&sb.repo().join(".qwen/settings.json"));
    for event in ["PostToolUse", "Stop", "SessionEnd"] {
        assert_eq!(
            qwen["hooks"][event][0]["hooks"][0]["command"],
            hook_command("qwen"),
            "{event}"
        );
    }
    let gemini = json_file(&sb.repo().join(".gemini/settings.json"));
    assert_eq!(gemini["hooks"]["AfterTool"][0]["matcher"], ".*");
    // Codex: hooks.json, and the feature switched on in a config whose comments stay.
    let codex = json_file(&sb.repo().join(".codex/hooks.json"));
    assert_eq!(
        codex["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        hook_command("codex")
    );
    let toml = std::fs::read_to_string(sb.repo().join(".codex/config.toml")).unwrap();
    assert!(
        toml.starts_with(
            "# our model\nmodel = \"o4\"\n\n[features]\n# keep this\nweb_search = true\n"
        ),
        "{toml}"
    );
    crate::snapshot::assert_text(&sb, "init-init-merges-then-a-second-run-changes-nothing-and-uninstall-takes-out-only-its-own-401", &toml);
    // Copilot: a hooks file of its own, the event named on the command line.
    let copilot = json_file(&sb.repo().join(".github/hooks/git-skill.json"));
    assert_eq!(copilot["version"], 1);
    assert_eq!(
        copilot["hooks"]["sessionEnd"][0]["bash"],
        git_skill::agent::settings::command(
            git_skill::agent::Agent::Copilot,
            Some("sessionEnd"),
            &std::fs::canonicalize(crate::common::BIN).unwrap()
        )
    );
    // The recorder skill in each agent's skill root, valid for lint.
    for root in [
        ".claude/skills",
        ".qwen/skills",
        ".agents/skills",
        ".gemini/skills",
        ".github/skills",
    ] {
        let skill = sb.repo().join(root).join("skill-recorder/SKILL.md");
        assert!(skill.is_file(), "{}", skill.display());
    }
    sb.run(&["lint", ".claude/skills/skill-recorder"])
        .assert_ok();
    // The rest of the set-up.
    let hook = std::fs::read_to_string(sb.repo().join(".git/hooks/pre-commit")).unwrap();
    crate::snapshot::assert_text(&sb, "init-init-merges-then-a-second-run-changes-nothing-and-uninstall-takes-out-only-its-own-402", &hook);
    assert!(sb
        .repo()
        .join(".claude/skills/deploy/.skillopt/.gitignore")
        .is_file());
    assert_eq!(enabled(&sb), "true");

    // A second run: not one byte changes.
    let installed = tree(&sb.repo());
    let again = sb.run(&["init", "--agent", "all"]);
    again.assert_ok();
    crate::snapshot::assert_snapshot(
        "init-init-merges-then-a-second-run-changes-nothing-and-uninstall-takes-out-only-its-own-2",
        &crate::snapshot::show(&sb, &again),
    );
    assert_eq!(tree(&sb.repo()), installed);

    // A person edits the recorder skill of one agent: uninstall leaves that one.
    let edited = sb.write(
        ".qwen/skills/skill-recorder/SKILL.md",
        "---\nname: skill-recorder\ndescription: Ours now.\n---\n",
    );
    let run = sb.run(&["init", "--agent", "all", "--uninstall"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "init-init-merges-then-a-second-run-changes-nothing-and-uninstall-takes-out-only-its-own-3",
        &crate::snapshot::show(&sb, &run),
    );
    // The person's files are back byte for byte, their backups gone with what init added.
    for file in [".claude/settings.json", ".codex/config.toml"] {
        assert_eq!(
            std::fs::read(sb.repo().join(file)).unwrap(),
            original[&sb.repo().join(file)],
            "{file}"
        );
    }
    for gone in CREATED {
        assert!(!sb.repo().join(gone).exists(), "{gone} is still there");
    }
    assert!(
        edited.is_file(),
        "a recorder skill a person changed was removed"
    );
    assert_eq!(enabled(&sb), "");
    assert!(sb.repo().join(".git/hooks/pre-commit").is_file());
    // What git sees: the tracked files are as they were; what is left is the person's skill
    // and the records' .gitignore (a file every skill with records should have).
    let status = sb.git(&["status", "--porcelain", "--untracked-files=all"]);
    let mut left: Vec<&str> = status.stdout.lines().collect();
    left.sort();
    assert_eq!(
        left,
        [
            "?? .claude/skills/deploy/.skillopt/.gitignore",
            "?? .qwen/skills/skill-recorder/SKILL.md",
        ],
        "{}",
        status.stdout
    );
}

#[test]
fn the_persons_own_edits_after_init_survive_uninstall() {
    let sb = team_repo();
    sb.run(&["init", "--agent", "claude"]).assert_ok();
    // The person adds a key after init: uninstall takes out only the hooks, keeps the key
    // and the backup (the file is no longer what it saved), in the file's own key order.
    let path = sb.repo().join(".claude/settings.json");
    let mut v = json_file(&path);
    v["model"] = json!("opus");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    sb.run(&["init", "--agent", "claude", "--uninstall"])
        .assert_ok();
    let text = std::fs::read_to_string(&path).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 1);
    assert!(!text.contains("git-skill"), "{text}");
    assert!(
        text.find("permissions").unwrap() < text.find("hooks").unwrap(),
        "{text}"
    );
    assert!(sb
        .repo()
        .join(".claude/settings.json.git-skill.bak")
        .is_file());
}

/// The command `init` installs for `agent`'s hooks, with this build's binary.
fn hook_command(agent: &str) -> String {
    let bin = std::fs::canonicalize(crate::common::BIN).unwrap();
    git_skill::agent::settings::command(git_skill::agent::Agent::parse(agent).unwrap(), None, &bin)
}

#[test]
fn the_hooks_init_writes_run_as_written() {
    let sb = team_repo();
    sb.run(&["init", "--agent", "claude"]).assert_ok();
    let claude = json_file(&sb.repo().join(".claude/settings.json"));
    let command = claude["hooks"]["PostToolUse"][1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = json!({
        "session_id": "s-1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "README.md"},
        "tool_response": {},
        "cwd": sb.repo(),
    })
    .to_string();
    for _ in 0..3 {
        let run = sb.cmd("sh").args(&["-c", &command]).stdin(&payload).run();
        run.assert_ok();
        assert_eq!(run.stdout, "");
    }
    // A PATH without git-skill (one the agent's settings could set) changes nothing.
    let run = sb
        .cmd("sh")
        .args(&["-c", &command])
        .envs(&[("PATH", "/usr/bin:/bin")])
        .stdin(&payload)
        .run();
    run.assert_ok();
    let state = json_file(&sb.repo().join(".git/skill/sessions/claude-s-1.json"));
    assert_eq!(state["tool_calls"], 4, "{state:#}");
    // A teammate without git-skill (not where init found it, not on PATH): a call that reads
    // goes on, silently; one that writes where agents load is refused with what to do.
    let bin = std::fs::canonicalize(crate::common::BIN).unwrap();
    let missing = command.replace(&bin.display().to_string(), "/nonexistent/git-skill");
    let without = |payload: &str| {
        sb.cmd("sh")
            .args(&["-c", &missing])
            .envs(&[("PATH", "/usr/bin:/bin")])
            .stdin(payload)
            .run()
    };
    let run = without(&payload);
    run.assert_ok();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    let write = json!({
        "session_id": "s-1",
        "hook_event_name": "PreToolUse",
        "transcript_path": sb.home().join(".claude/projects/x/s-1.jsonl"),
        "tool_name": "Write",
        "tool_input": {"file_path": sb.repo().join(".claude/skills/x/SKILL.md"), "content": "x"},
        "cwd": sb.repo(),
    })
    .to_string();
    let run = without(&write);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("git-skill is not installed") && run.stderr.contains("--uninstall"),
        "{}",
        run.stderr
    );
    // Where the session keeps its transcript (under ~/.claude) does not count.
    let read = write
        .replace(".claude/skills/x/SKILL.md", "README.md")
        .replace("\"Write\"", "\"Read\"");
    without(&read).assert_ok();
}

#[test]
fn without_agents_named_init_takes_those_the_repository_uses() {
    let sb = team_repo();
    sb.run(&["init", "--dry-run"]).assert_ok();
    let run = sb.run(&["init"]);
    run.assert_ok();
    assert!(sb.repo().join(".codex/hooks.json").is_file());
    assert!(sb
        .repo()
        .join(".claude/skills/skill-recorder/SKILL.md")
        .is_file());
    for absent in [".qwen", ".gemini", ".github"] {
        assert!(!sb.repo().join(absent).exists(), "{absent} was created");
    }

    let bare = Sandbox::with_repo();
    let run = bare.run(&["init"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "init-without-agents-named-init-takes-those-the-repository-uses-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(enabled(&bare), "");
}

#[test]
fn user_scope_writes_under_home_and_the_agents_own_homes() {
    let sb = team_repo();
    let codex_home = sb.home().join("codex-home");
    let copilot_home = sb.home().join("copilot-home");
    let repo_before = tree(&sb.repo());
    let run = sb.run_in(
        ".",
        &["init", "--agent", "all", "--scope", "user"],
        &[
            ("CODEX_HOME", codex_home.to_str().unwrap()),
            ("COPILOT_HOME", copilot_home.to_str().unwrap()),
        ],
    );
    run.assert_ok();
    let home = sb.home();
    assert!(json_file(&home.join(".claude/settings.json"))["hooks"]["SessionEnd"].is_array());
    assert!(json_file(&home.join(".qwen/settings.json"))["hooks"]["Stop"].is_array());
    assert!(json_file(&home.join(".gemini/settings.json"))["hooks"]["AfterTool"].is_array());
    assert!(json_file(&codex_home.join("hooks.json"))["hooks"]["SessionEnd"].is_array());
    assert!(std::fs::read_to_string(codex_home.join("config.toml"))
        .unwrap()
        .contains("hooks = true"));
    assert!(
        json_file(&copilot_home.join("hooks/git-skill.json"))["hooks"]["postToolUse"].is_array()
    );
    assert!(home
        .join(".claude/skills/skill-recorder/SKILL.md")
        .is_file());
    // The repository gets only the commit hooks, the records' .gitignore and the config
    // (with the note that init turned it on).
    let changed: Vec<PathBuf> = tree(&sb.repo())
        .into_iter()
        .filter(|(p, c)| repo_before.get(p) != Some(c))
        .map(|(p, _)| p.strip_prefix(sb.repo()).unwrap().to_owned())
        .filter(|p| !p.starts_with(".git/logs") && !p.ends_with("index"))
        .collect();
    assert_eq!(
        changed,
        [
            PathBuf::from(".claude/skills/deploy/.skillopt/.gitignore"),
            PathBuf::from(".git/config"),
            PathBuf::from(".git/hooks/pre-commit"),
            PathBuf::from(".git/hooks/pre-merge-commit"),
            PathBuf::from(".git/skill/init-enabled"),
        ]
    );
}

#[test]
fn a_broken_settings_file_is_named_and_nothing_is_written() {
    let sb = team_repo();
    sb.write(".gemini/settings.json", "{\"hooks\": [1, 2,\n");
    let before = tree(&sb.repo());
    let run = sb.run(&["init", "--agent", "all"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "init-a-broken-settings-file-is-named-and-nothing-is-written-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(
        tree(&sb.repo()),
        before,
        "init wrote before finding the broken file"
    );

    let sb = team_repo();
    sb.write(".codex/config.toml", "features = 3\n");
    let run = sb.run(&["init", "--agent", "codex"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "init-a-broken-settings-file-is-named-and-nothing-is-written-2",
        &crate::snapshot::show(&sb, &run),
    );

    let sb = team_repo();
    sb.write(".qwen/settings.json", "[1]");
    let run = sb.run(&["init", "--agent", "qwen"]);
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "init-a-broken-settings-file-is-named-and-nothing-is-written-301",
        &run,
    );
}

#[cfg(unix)]
#[test]
fn links_are_followed_inside_the_repository_and_refused_out_of_it() {
    // A settings file linked to a shared one in the repository: edited where it points, the
    // link kept.
    let sb = team_repo();
    sb.write("shared/gemini.json", "{\"theme\": \"dark\"}\n");
    sb.symlink("../shared/gemini.json", ".gemini/settings.json");
    sb.run(&["init", "--agent", "gemini"]).assert_ok();
    let link = sb.repo().join(".gemini/settings.json");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let shared = json_file(&sb.repo().join("shared/gemini.json"));
    assert_eq!(shared["theme"], "dark");
    assert!(shared["hooks"]["AfterTool"].is_array());

    // A project directory that leads out of the repository: refused, nothing written outside.
    let sb = team_repo();
    let outside = sb.home().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    sb.symlink(&outside, ".qwen");
    let run = sb.run(&["init", "--agent", "qwen"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "init-links-are-followed-inside-the-repository-and-refused-out-of-it-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert_eq!(enabled(&sb), "");
}

#[test]
fn uninstall_leaves_a_setting_init_did_not_make() {
    let sb = team_repo();
    sb.git(&["config", "skill.autoSkill.enabled", "true"])
        .assert_ok();
    sb.run(&["init", "--agent", "claude"]).assert_ok();
    let run = sb.run(&["init", "--agent", "claude", "--uninstall"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "init-uninstall-leaves-a-setting-init-did-not-make-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(enabled(&sb), "true");
    // Set by init: taken out by its uninstall.
    sb.git(&["config", "--unset", "skill.autoSkill.enabled"])
        .assert_ok();
    sb.run(&["init", "--agent", "claude"]).assert_ok();
    assert_eq!(enabled(&sb), "true");
    sb.run(&["init", "--agent", "claude", "--uninstall"])
        .assert_ok();
    assert_eq!(enabled(&sb), "");
}
