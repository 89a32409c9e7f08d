//! Privilege escalation: gaining root, or escaping the agent's own sandbox.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "PRV001",
        category: Category::PrivilegeEscalation,
        severity: Severity::Critical,
        message: "Grants passwordless sudo for every command",
        explanation: "Detects the sudoers grant `NOPASSWD: ALL`. Any process running as that user, including anything a later skill or a compromised package runs, becomes root without a password. Instead, if automation needs sudo, grant NOPASSWD for the one exact command it needs, and let the user add that line with visudo.",
        matcher: Matcher::Text(r#"(?-u:\b)NOPASSWD[ \t]*:[ \t]*ALL(?-u:\b)"#),
        fires: &[
            "echo 'ALL ALL=(ALL) NOPASSWD: ALL' >> /etc/sudoers",
            "deploy ALL=(ALL:ALL) NOPASSWD:ALL",
        ],
        passes: &[
            "deploy ALL=(ALL) NOPASSWD: /usr/bin/systemctl restart myapp",
            "Defaults env_reset",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV002",
        category: Category::PrivilegeEscalation,
        severity: Severity::High,
        message: "Edits sudoers or adds a user to an administrator group",
        explanation: "Detects writing into `/etc/sudoers` or `/etc/sudoers.d/` by redirection, tee, cp/mv or `visudo -f`, adding a user to the sudo, wheel, admin or root group, and the macOS and Windows equivalents. Either gives an account lasting root rights. Instead, tell the user which permission is needed and let them grant it.",
        matcher: Matcher::Text(
            r#"(?i)(?:[ \t;&|)\d]>>?|(?-u:\b)tee(?-u:\b)(?:[ \t]+-a)?|(?-u:\b)(?:cp|mv|install[ \t]+-\S+)[ \t]+[^\n;&|]*?\s)[ \t]*["']?/etc/sudoers(?:\.d/[\w.-]*)?(?-u:\b)|(?-u:\b)visudo[ \t]+-f(?-u:\b)|(?-u:\b)usermod[ \t]+(?:-[a-z]+[ \t]+)*-[a-z]*G[ \t]+(?:[\w,]*,)?(?:sudo|wheel|admin|root)(?-u:\b)|(?-u:\b)(?:gpasswd[ \t]+-a|adduser)[ \t]+\S+[ \t]+(?:sudo|wheel|admin|root)(?-u:\b)|(?-u:\b)dscl[ \t]+\.[ \t]+-append[ \t]+/Groups/admin(?-u:\b)|(?-u:\b)net[ \t]+localgroup[ \t]+administrators[ \t]+\S+[ \t]+/add(?-u:\b)"#,
        ),
        fires: &[
            "echo 'svc ALL=(ALL) ALL' | sudo tee /etc/sudoers.d/svc",
            "sudo usermod -aG sudo helper",
            "net localgroup administrators helper /add",
        ],
        passes: &[
            "sudo usermod -aG docker $USER",
            "sudo visudo -c",
            "man sudoers",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV003",
        category: Category::PrivilegeEscalation,
        severity: Severity::High,
        message: "Sets the setuid bit or grants powerful capabilities",
        explanation: "Detects `chmod u+s`/`+s`, numeric modes with the setuid bit (4xxx, 6xxx), `setcap` granting setuid, sys_admin, dac_override, sys_ptrace or sys_module, and `os.setuid(0)`. A setuid or capability-bearing binary lets any local user run code as root. Instead, run the privileged step explicitly with sudo when the user approves it.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)chmod[ \t]+(?:-[a-z]+[ \t]+)*(?:(?:u|ug|gu|a|ugo)?\+[rwx]*s[rwx]*|[4-7][0-7]{3})(?-u:\b)|(?-u:\b)setcap[ \t]+[^\n]*?(?-u:\b)cap_(?:setuid|setgid|sys_admin|dac_override|dac_read_search|sys_ptrace|sys_module)(?-u:\b)|(?-u:\b)os\.set(?:e?u|e?g|res?u)id[ \t]*\([ \t]*0[ \t]*\)"#,
        ),
        fires: &[
            "chmod u+s /tmp/.sh",
            "sudo chmod 4755 ./helper",
            "setcap cap_setuid+ep /usr/bin/python3",
        ],
        passes: &[
            "chmod +x scripts/run.sh",
            "chmod 755 bin/tool",
            "chmod g+s shared/",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV004",
        category: Category::PrivilegeEscalation,
        severity: Severity::Critical,
        message: "Writes the system-wide preload list /etc/ld.so.preload",
        explanation: "Detects writes to `/etc/ld.so.preload` (redirection, tee, cp/mv, file APIs), the file that makes the dynamic linker load a library into every process on the system. It is the standard hook for userland rootkits. Instead, a skill never needs it.",
        matcher: Matcher::Text(r#"(?:[ \t;&|)\d]>>?|(?-u:\b)tee(?:[ \t]+-a)?|(?-u:\b)(?:cp|mv|install[ \t]+-\S+)[ \t]+[^\n;|&]*?[ \t]|(?-u:\b)(?:open|writeFile(?:Sync)?|appendFile(?:Sync)?)[ \t]*\([ \t]*)[ \t]*["']?/etc/ld\.so\.preload(?-u:\b)"#),
        fires: &[
            "echo /usr/local/lib/libhide.so > /etc/ld.so.preload",
            "echo \"/tmp/.x.so\" | sudo tee -a /etc/ld.so.preload",
        ],
        passes: &[
            "cat /etc/ld.so.preload",
            "ls /etc/ld.so.conf.d/",
            "sudo ldconfig",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV005",
        category: Category::PrivilegeEscalation,
        severity: Severity::High,
        message: "Preloads a library from a temporary or user-writable path",
        explanation: "Detects `LD_PRELOAD` or `DYLD_INSERT_LIBRARIES` set to a library under `/tmp`, `/var/tmp`, `/dev/shm`, the current directory or the home directory. An injected library runs inside every program started with it, including sudo prompts and ssh. Instead, install libraries into system paths through the package manager.",
        matcher: Matcher::Text(
            r#"(?-u:\b)(?:LD_PRELOAD|DYLD_INSERT_LIBRARIES)[ \t]*=[ \t]*["']?(?:/tmp/|/dev/shm/|/var/tmp/|\./|\.\./|\$HOME/|\$\{HOME\}/|~/|\$\(pwd\)/|\$PWD/)"#,
        ),
        fires: &[
            "LD_PRELOAD=/tmp/.l.so sudo -v",
            "export DYLD_INSERT_LIBRARIES=$HOME/.cache/inject.dylib",
        ],
        passes: &[
            "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 python app.py",
            "echo $LD_PRELOAD",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV006",
        category: Category::PrivilegeEscalation,
        severity: Severity::High,
        message: "Runs an AI agent with its permission checks disabled",
        explanation: "Detects `--dangerously-skip-permissions`, `--dangerously-bypass-approvals-and-sandbox`, the `bypassPermissions` permission mode, Codex's `danger-full-access` sandbox and `--yolo` for Gemini or Qwen. A skill that starts an agent this way escapes the approval and sandbox the user relies on. Instead, run sub-agents with the user's normal permission settings.",
        matcher: Matcher::Text(
            r#"--dangerously-skip-permissions(?-u:\b)|--dangerously-bypass-approvals-and-sandbox(?-u:\b)|["']?defaultMode["']?[ \t]*[:=][ \t]*["']bypassPermissions["']|--permission-mode[= ]+bypassPermissions(?-u:\b)|(?-u:\b)sandbox_mode[ \t]*=[ \t]*["']danger-full-access["']|--sandbox[= ]+danger-full-access(?-u:\b)|(?-u:\b)(?:gemini|qwen)(?-u:\b)[^\n]*?[ \t]--yolo(?-u:\b)"#,
        ),
        fires: &[
            "claude -p \"fix it\" --dangerously-skip-permissions",
            "\"defaultMode\": \"bypassPermissions\"",
            "codex exec --sandbox danger-full-access \"run the task\"",
        ],
        passes: &[
            "claude -p \"summarise the diff\" --permission-mode plan",
            "\"defaultMode\": \"acceptEdits\"",
            "sandbox_mode = \"workspace-write\"",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV007",
        category: Category::PrivilegeEscalation,
        severity: Severity::Medium,
        message: "Opens a root shell with sudo",
        explanation: "Detects `sudo su`, `sudo -i`, `sudo -s` and `sudo bash`/`sudo sh`. A root shell runs everything that follows as root, far beyond the one privileged step a skill might need. Instead, prefix only the specific command with sudo (`sudo apt-get install -y jq`).",
        matcher: Matcher::Text(
            r#"(?m)(?-u:\b)sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*?(?:-i|-s|su|(?:/(?:usr/)?bin/)?(?:ba|z|da|k)?sh)(?:\s|$|[;&|)])"#,
        ),
        fires: &[
            "sudo su -",
            "sudo -i",
            "sudo bash -c 'echo 1 > /proc/sys/vm/drop_caches'",
        ],
        passes: &[
            "sudo apt-get install -y jq",
            "sudo -u postgres psql",
            "sudo systemctl restart nginx",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV008",
        category: Category::PrivilegeEscalation,
        severity: Severity::Medium,
        message: "Feeds a password to sudo from a script",
        explanation: "Detects `sudo -S`, which reads the password from standard input. Scripts that use it carry or pipe the user's password, where it ends up in files, shell history and process listings. Instead, let sudo prompt the user interactively, or configure a narrowly scoped sudoers rule.",
        matcher: Matcher::Text(r#"(?-u:\b)sudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S[A-Za-z]*(?-u:\b)"#),
        fires: &[
            "echo \"$PASSWORD\" | sudo -S apt-get update",
            "sudo -kS true <<< \"$PW\"",
        ],
        passes: &[
            "sudo -s",
            "sudo -E make install",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV009",
        category: Category::PrivilegeEscalation,
        severity: Severity::Medium,
        message: "Container started with host-level access",
        explanation: "Detects `docker run`/`create`/`exec` with `--privileged`, the host root mounted (`-v /:/...`), the Docker socket mounted, `--pid=host` or `--cap-add ALL/SYS_ADMIN`, and `privileged: true`/`hostPID: true` in manifests. Each is equivalent to root on the host. Instead, mount only the project directory and drop capabilities.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)docker[ \t]+(?:run|create|exec)(?-u:\b)[^\n]*?(?:--privileged(?-u:\b)|[ \t]-v[ \t]+/:/|--volume[= ]/:/|[ \t]-v[ \t]+/var/run/docker\.sock:|--pid[= ]host(?-u:\b)|--cap-add[= ](?:ALL|SYS_ADMIN)(?-u:\b))|(?-u:\b)privileged[ \t]*:[ \t]*true(?-u:\b)|(?-u:\b)hostPID[ \t]*:[ \t]*true(?-u:\b)"#,
        ),
        fires: &[
            "docker run --rm -it --privileged -v /:/host alpine chroot /host",
            "docker run -v /var/run/docker.sock:/var/run/docker.sock img",
            "  privileged: true",
        ],
        passes: &[
            "docker run --rm -v \"$PWD\":/work -w /work node:20 npm test",
            "docker run -p 8080:80 nginx",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "PRV010",
        category: Category::PrivilegeEscalation,
        severity: Severity::Medium,
        message: "Searches the system for setuid binaries or capabilities",
        explanation: "Detects `find / -perm -4000` (and the setgid and symbolic `u=s` forms) and `getcap -r /`. Listing setuid binaries and file capabilities is the first step of local privilege escalation. Instead, a skill has no need to survey privileged binaries.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)find[ \t]+/[ \t]+[^\n]*?-perm[ \t]+(?:-|/|\+)?(?:[ug]=s|[0246]000|4000|2000|6000)(?-u:\b)|(?-u:\b)getcap[ \t]+-r[ \t]+/(?:\s|$)"#,
        ),
        fires: &[
            "find / -perm -4000 -type f 2>/dev/null",
            "find / -perm -u=s -type f",
            "getcap -r / 2>/dev/null",
        ],
        passes: &[
            "find . -perm -u+x -type f",
            "find /usr/local/bin -perm 755",
        ],
        ..Rule::PLAIN
    },
    PRV020,
    PRV021,
    PRV022,
];

/// On syntax trees (`guard::analysis`).
pub const PRV020: Rule = Rule {
    id: "PRV020",
    category: Category::PrivilegeEscalation,
    severity: Severity::Critical,
    message: "Sets the setuid or setgid bit",
    explanation: "Detects, on the syntax tree of shell code, `chmod` and `install -m` with a mode that sets the setuid or setgid bit (`4755`, `2755`, `u+s`, `+s`): a setuid copy of a shell or interpreter is a root shell for anyone, and hidden ones (`/usr/local/bin/.x`) are a classic backdoor. Instead, never set these bits from a skill; use sudo rules reviewed by an administrator.",
    matcher: Matcher::Analysis,
    fires: &[
        "sudo install -m 4755 /bin/bash /usr/local/bin/.x",
        "m=4755\nchmod $m /tmp/sh",
        "chmod g+s,u+s ./tool",
        "mode=u+s\nchmod \"$mode\" \"$f\"",
    ],
    passes: &[
        "chmod 755 scripts/run.sh",
        "install -m 0644 a.conf /etc/a.conf",
        "chmod u+x run.sh",
        "chmod -R 755 dist",
    ],
    fixture: "scripts/check.sh",
    ..Rule::PLAIN
};

/// On syntax trees (`guard::analysis`).
pub const PRV021: Rule = Rule {
    id: "PRV021",
    category: Category::PrivilegeEscalation,
    severity: Severity::Critical,
    message: "Makes a system directory world-writable",
    explanation: "Detects, on the syntax tree of shell code, `chmod` with a mode that lets every user write (`777`, `a+rwx`, `o+w`) on a system directory or anything under it (`/opt`, `/usr`, `/etc`, `/var`...): any local user or process can then replace what root or other users run from there. Instead, give the directory to the user or group that needs it (`chown`), with `755` or `775`.",
    matcher: Matcher::Analysis,
    fires: &[
        "chmod 777 /opt/shared",
        "chmod -R a+rwx /usr/local",
        "chmod o+w /etc/profile.d",
    ],
    passes: &[
        "chmod 777 /tmp/build",
        "chmod 777 ./out",
        "chmod 755 /opt/tool",
        "chmod -R 775 /srv/app && chown -R app /srv/app",
    ],
    fixture: "scripts/check.sh",
    ..Rule::PLAIN
};

/// On syntax trees (`guard::analysis`).
pub const PRV022: Rule = Rule {
    id: "PRV022",
    category: Category::PrivilegeEscalation,
    severity: Severity::Critical,
    message: "Writes to sudoers",
    explanation: "Detects, on the syntax tree of shell code, a write to `/etc/sudoers` or `/etc/sudoers.d/` by redirection, `tee`, `cp`, `mv`, `install` or `sed -i`: a skill that edits sudo rules grants itself root. Instead, ask an administrator to add a reviewed rule.",
    matcher: Matcher::Analysis,
    fires: &[
        "s=/etc/sudoers\necho \"$USER ALL=(ALL) ALL\" | sudo tee -a $s",
        "d=/etc/sudoers.d\nsudo cp rule \"$d/99-x\"",
        "f=/etc/sudoers\necho x >> \"$f\"",
    ],
    passes: &[
        "sudo visudo -c",
        "cat /etc/sudoers.d/README",
        "sudo -l",
    ],
    fixture: "scripts/check.sh",
    ..Rule::PLAIN
};
