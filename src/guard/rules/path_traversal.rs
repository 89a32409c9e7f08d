//! Path traversal: reaching files outside the skill and into the system.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "PTH001",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "Relative path climbs into a system directory",
        explanation: "Detects three or more `../` steps followed by a system directory such as `etc`, `proc`, `root`, `home`, `var` or `Windows` (`../../../../etc/passwd`). This is the classic traversal payload for reading files outside the intended tree. Instead, refer to files inside the skill or the user's project by paths relative to them.",
        matcher: Matcher::Text(
            r#"(?:\.\.[/\\]){3,}(?:etc|proc|root|home|usr|var|boot|sys|dev|private|Users|[Ww]indows)(?:[/\\]|(?-u:\b))"#,
        ),
        fires: &[
            "../../../../etc/passwd",
            "open(\"../../../../../proc/self/environ\")",
            r"..\..\..\Windows\System32\config\SAM",
        ],
        passes: &[
            "import { x } from '../../../src/utils/helpers'",
            "../../README.md",
            "cd ../..",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH002",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "URL-encoded directory traversal",
        explanation: "Detects two or more percent-encoded `../` steps (`%2e%2e%2f`, `..%2f`, double-encoded `%252e` and overlong UTF-8 `%c0%af`). Encoding the dots and slashes is only useful for slipping a traversal past a filter. Instead, a skill has no reason to construct such URLs.",
        matcher: Matcher::Text(
            r#"(?i)(?:(?:%2e%2e|%252e%252e|%c0%ae%c0%ae|\.%2e|%2e\.)(?:%2f|%5c|%252f|%c0%af|/|\\)|\.\.(?:%2f|%5c|%252f|%c0%af)){2,}"#,
        ),
        fires: &[
            "GET /static/%2e%2e%2f%2e%2e%2fetc/passwd",
            "curl 'http://target/download?file=..%2f..%2f..%2fetc%2fshadow'",
        ],
        passes: &[
            "https://example.com/a%20b/c",
            "../../docs/index.md",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH003",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "Reads another process's environment or memory through /proc",
        explanation: "Detects `/proc/<pid>/environ`, `/proc/<pid>/mem`, `/proc/self/environ` and `/proc/kcore`. The environ file holds every secret passed to a process; mem and kcore expose raw memory. Instead, read the one variable you need from your own environment.",
        matcher: Matcher::Text(
            r#"/proc/(?:self|thread-self|\d+|\$\{?\w+\}?|\*)/(?:environ|mem)(?-u:\b)|/proc/kcore(?-u:\b)"#,
        ),
        fires: &[
            "/proc/self/environ",
            "cat /proc/1/environ | tr '\\0' '\\n'",
            "strings /proc/$PID/mem",
        ],
        passes: &[
            "cat /proc/cpuinfo",
            "grep VmRSS /proc/self/status",
            "cat /proc/meminfo",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH004",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "Reads or copies the system password hashes",
        explanation: "Detects commands and file APIs reading `/etc/shadow`, `/etc/gshadow` or `/etc/master.passwd`, `reg save` or copies of the Windows SAM, SECURITY and SYSTEM hives, and copies of `NTDS.dit` (including `ntdsutil ifm`); a path merely listed is not reported. These hold the password hashes of every account. Instead, a skill never needs them.",
        matcher: Matcher::Text(
            r#"(?i)(?:(?-u:\b)(?:cat|less|more|head|tail|cp|scp|tar|zip|base64|xxd|strings|grep|awk|sed|unshadow|john|hashcat|vi|vim|nano|dd|tee)[ \t]+(?:[^\n|;&]*?[ \t])?|(?-u:\b)(?:open|readFile(?:Sync)?|read_text|Get-Content)[ \t]*\(?[ \t]*["']?)/etc/(?:shadow|gshadow|master\.passwd|security/opasswd)(?-u:\b)|(?-u:\b)reg(?:\.exe)?[ \t]+save[ \t]+HKLM\\(?:SAM|SECURITY|SYSTEM)(?-u:\b)|(?-u:\b)(?:copy|cp|xcopy|robocopy|esentutl(?:\.exe)?[ \t]+/y)[ \t]+[^\n]*?(?:[/\\]windows[/\\]system32[/\\]config[/\\](?:SAM|SECURITY|SYSTEM)(?-u:\b)|NTDS\.dit(?-u:\b))|(?-u:\b)ntdsutil(?:\.exe)?(?-u:\b)[^\n]*?(?-u:\b)ifm(?-u:\b)"#,
        ),
        fires: &[
            "sudo cat /etc/shadow",
            r"reg save HKLM\SAM C:\Temp\sam.hive",
            r"copy C:\Windows\System32\config\SAM C:\Temp\",
        ],
        passes: &[
            "cat /etc/hosts",
            "pip install shadowsocks",
            "SENSITIVE = [\"/etc/shadow\", \"/etc/sudoers\"]",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH005",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "Extracts an archive over the filesystem root",
        explanation: "Detects `tar -P`/`--absolute-names` and tar or unzip extracting into `/`. Archive entries with absolute or `../` paths then overwrite system files such as `/etc/passwd` or binaries in `/usr/bin`. Instead, extract into a fresh directory the skill owns and copy out the files you need.",
        matcher: Matcher::Text(
            r#"(?m)(?-u:\b)tar(?-u:\b)[^\n|;&]*?[ \t](?:-[a-zA-Z]*P[a-zA-Z]*|--absolute-names)(?:\s|$)|(?-u:\b)tar(?-u:\b)[^\n|;&]*?[ \t](?:-C|--directory)(?:[ \t]+|=)["']?/["']?(?:\s|$)|(?-u:\b)unzip(?-u:\b)[^\n|;&]*?[ \t]-d[ \t]+["']?/["']?(?:\s|$)"#,
        ),
        fires: &[
            "tar -xPf payload.tar",
            "sudo tar xzf update.tgz -C /",
            "unzip -o patch.zip -d /",
        ],
        passes: &[
            "tar -xzf node.tar.gz -C /usr/local --strip-components=1",
            "tar -xpf dist.tar -C ./out",
            "unzip -o site.zip -d /srv/www",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH006",
        category: Category::PathTraversal,
        severity: Severity::High,
        message: "Relative path climbs out of the skill into agent or credential directories",
        explanation: "Detects `../` paths that lead into `.claude/`, `.cursor/`, `.codex/`, `.gemini/`, `.git/hooks/`, `.git/config`, `.ssh/`, `.aws/` or `.gnupg/`. A skill reaching from its own folder into the agent's configuration or the user's keys is escaping its scope. Instead, touch only files inside the skill or the paths the user named.",
        matcher: Matcher::Text(
            r#"(?:\.\.[/\\])+(?:\.claude|\.cursor|\.codex|\.gemini|\.ssh|\.aws|\.gnupg)[/\\]|(?:\.\.[/\\])+\.git[/\\](?:hooks(?-u:\b)|config(?-u:\b))"#,
        ),
        fires: &[
            "cp payload.json ../../../.claude/settings.json",
            "open('../../.git/hooks/pre-commit', 'w')",
            "cp ../../../.ssh/id_rsa out/",
        ],
        passes: &[
            "../shared/helpers.py",
            "../../.gitignore",
            "../.claude-plugin/plugin.json",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PTH007",
        category: Category::PathTraversal,
        severity: Severity::Low,
        message: "Reads the system account list",
        explanation: "Detects commands and file APIs reading `/etc/passwd`. The file is world-readable and holds no passwords, but reading it is a routine reconnaissance step and rarely needed by a skill. Instead, use `id` or `getent passwd \"$USER\"` for the current account.",
        matcher: Matcher::Text(
            r#"(?:(?-u:\b)(?:cat|less|more|head|tail|grep|awk|cut|strings)[ \t]+(?:[^\n|;&]*?\s)?|(?-u:\b)open[ \t]*\([ \t]*["']|(?-u:\b)readFile(?:Sync)?[ \t]*\([ \t]*["']|(?-u:\b)Get-Content[ \t]+)/etc/passwd(?-u:\b)"#,
        ),
        fires: &[
            "cat /etc/passwd",
            "with open('/etc/passwd') as f:",
            "cut -d: -f1 /etc/passwd",
        ],
        passes: &[
            "getent passwd \"$USER\"",
            "../../../../etc/passwd",
        ],
        ..Rule::PLAIN
    },
];
