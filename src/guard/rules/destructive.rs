//! Destructive operations: wiping files, disks, permissions or work.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "DES001",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Recursive delete of the filesystem root, home or a system directory",
        explanation: "Detects `rm -r` / `rm -rf` whose target is `/`, `/*`, `~`, `$HOME` or a top-level system directory such as `/etc` or `/usr`. One run erases the user's data or the operating system. Instead, delete only paths the skill created, spelled out relative to a directory it owns (for example `rm -rf ./dist` or a `mktemp -d` directory).",
        matcher: Matcher::Text(
            r#"(?im)(?:^|[^"'\x{201C}\x{2018}\w-]|(?:-c|eval|exec|system|popen|run|spawn|call|check_output|check_call|execSync|Popen|shell_exec|passthru|getoutput)[ \t]*\(?[ \t]*["']|["']?(?:command|cmd|run|script|exec|shell|entrypoint|postinstall|preinstall|install|postCreateCommand)["']?[ \t]*[:=][ \t]*\[?[ \t]*["'])rm[ \t]+(?:-{1,2}[\w-]+[ \t]+)*?(?:-[a-z]*r[a-z]*|--recursive)[ \t]+(?:-{1,2}[\w-]+[ \t]+)*["']?(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/|\$\{HOME\}/|\$HOME/\*|/(?:bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var|Users|System|Applications|Library|private)/?\*?)["']?(?:\s|$|[;&|),])"#,
        ),
        fires: &[
            "rm -rf /",
            "rm -rf ~",
            "sudo rm -rf --no-preserve-root /",
            "rm -r -f \"$HOME\"",
            "subprocess.run(\"rm -rf ~\", shell=True)",
            "rm -rf /etc/*",
        ],
        passes: &[
            "rm -rf /tmp/build-*",
            "rm -rf ./dist",
            "rm -rf ~/.cache/pip",
            "rm -rf /var/lib/apt/lists/*",
            "BLOCKED = [\"rm -rf /\", \"mkfs\", \"dd if=\"]",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES002",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Code or Windows command deletes the root or home directory",
        explanation: "Detects `shutil.rmtree`, `fs.rm`, `rimraf` or `FileUtils.rm_rf` called on `/`, `~` or the home directory, and `Remove-Item -Recurse`, `rd /s` or `del /s` on a drive root or the user profile. This wipes the user's files or system. Instead, remove only a directory the skill created, passed as an explicit path.",
        matcher: Matcher::Text(
            r#"(?im)(?-u:\b)(?:shutil\.rmtree|rimraf(?:\.sync)?|fs\.rm(?:Sync)?|fs\.promises\.rm|fse?\.remove(?:Sync)?|FileUtils\.rm_rf)[ \t]*\([ \t]*(?:["'](?:/|~|~/|/\*|[a-z]:\\{0,2})["']|os\.path\.expanduser\([ \t]*["']~/?["'][ \t]*\)|Path\.home\(\)[ \t]*[,)]|os\.homedir\(\)[ \t]*[,)]|os\.environ\[[ \t]*["']HOME["'][ \t]*\][ \t]*[,)]|process\.env\.HOME[ \t]*[,)])|(?-u:\b)(?:Remove-Item|rm|del|rd|rmdir)(?-u:\b)[^\n]*?[ \t](?:-Recurse|/s)(?-u:\b)[^\n]*?[ \t]["']?(?:[a-z]:\\?\*?|\$env:USERPROFILE|\$HOME|%USERPROFILE%|%SystemRoot%|%windir%)["']?(?:\s|$|[;&|])"#,
        ),
        fires: &[
            "shutil.rmtree(os.path.expanduser(\"~\"))",
            "fs.rmSync(\"/\", { recursive: true, force: true })",
            r"Remove-Item -Recurse -Force C:\",
            r"rd /s /q C:\",
        ],
        passes: &[
            "shutil.rmtree(\"build\")",
            "shutil.rmtree(tmp_dir, ignore_errors=True)",
            r"Remove-Item -Recurse -Force .\dist",
            "shutil.rmtree(Path.home() / \".cache\" / \"my-skill\")",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES003",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Formats or wipes a disk",
        explanation: "Detects filesystem creation or signature wiping on a block device (`mkfs`, `mke2fs`, `mkswap`, `wipefs` on `/dev/...`), `diskutil erase*`, `sgdisk --zap-all`, Windows `format X: /...` and the PowerShell disk cmdlets. These destroy everything on the device. Instead, never format disks from a skill; build images into a file (`mkfs.ext4 disk.img`) if you need one.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs)(?-u:\b)[^\n;|&]*?[ \t]/dev/|(?-u:\b)diskutil[ \t]+(?:erase\w*|zeroDisk|secureErase|partitionDisk|reformat)(?-u:\b)|(?-u:\b)sgdisk[ \t]+(?:-Z|--zap-all)(?-u:\b)|(?-i:(?-u:\b)format[ \t]+[A-Z]:[ \t]*/[A-Za-z])|(?-u:\b)(?:Clear-Disk|Initialize-Disk|Format-Volume)(?-u:\b)"#,
        ),
        fires: &[
            "mkfs.ext4 /dev/sda",
            "sudo wipefs -a /dev/nvme0n1",
            "diskutil eraseDisk JHFS+ Empty disk2",
            "format C: /FS:NTFS /Q",
        ],
        passes: &[
            "mkfs.ext4 -F disk.img",
            "diskutil list",
            "Format the output as JSON.",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES004",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Raw write to a block device",
        explanation: "Detects `dd of=/dev/sdX` (and NVMe, virtio, MMC, macOS disk devices), shell redirection into a disk device and `shred` of a device. Writing raw bytes over a disk destroys its partition table and data. Instead, write images to files, and leave flashing a device to the user with the device name confirmed by them.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)dd(?-u:\b)[^\n;|&]*?(?-u:\b)of=/dev/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|disk\d|rdisk\d|mmcblk\d|md\d|dm-\d|mapper/|root(?-u:\b))|(?:[ \t;&|)\d]>|(?-u:\b)tee[ \t]+)[ \t]*/dev/(?:sd[a-z]|nvme\d+n\d|hd[a-z]|vd[a-z]|xvd[a-z]|disk\d|rdisk\d|mmcblk\d)|(?-u:\b)shred(?-u:\b)[^\n;|&]*?[ \t]/dev/(?:sd|nvme|hd|vd|xvd|disk|mmcblk)"#,
        ),
        fires: &[
            "dd if=/dev/zero of=/dev/sda",
            "sudo dd if=/dev/urandom of=/dev/nvme0n1 bs=1M",
            "cat /dev/urandom > /dev/sdb",
            "shred -n 3 /dev/sda",
        ],
        passes: &[
            "dd if=/dev/zero of=./disk.img bs=1M count=64",
            "dd if=/dev/urandom of=/dev/null bs=1M count=10",
            "lsblk /dev/sda",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES005",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Recursive permission or owner change on the root, home or a system directory",
        explanation: "Detects `chmod -R`, `chown -R` or `chgrp -R` applied to `/`, `~`, `$HOME` or a top-level system directory. It breaks the operating system (sudo, ssh and many services refuse world-writable or foreign-owned files) and can open the whole machine to other users. Instead, change permissions only on files the skill created.",
        matcher: Matcher::Text(
            r#"(?im)(?:^|[^"'\x{201C}\x{2018}\w-]|(?:-c|eval|exec|system|popen|run|spawn|call|check_output|check_call|execSync|Popen|shell_exec|passthru|getoutput)[ \t]*\(?[ \t]*["']|["']?(?:command|cmd|run|script|exec|shell|entrypoint|postinstall|preinstall|install|postCreateCommand)["']?[ \t]*[:=][ \t]*\[?[ \t]*["'])ch(?:mod|own|grp)[ \t]+(?:-[a-z]+[ \t]+)*-[a-z]*R[a-z]*[ \t]+(?:-[a-z]+[ \t]+)*[^\s/][^\s]*[ \t]+["']?(?:/|/\*|~|~/|\$HOME/?|/(?:etc|usr|bin|sbin|var|home|root|boot|lib|lib64|opt|Users|System|Library))/?["']?(?:\s|$|[;&|])"#,
        ),
        fires: &[
            "chmod -R 777 /",
            "sudo chown -R nobody:nogroup /etc",
            "chmod -R a+rwx ~",
        ],
        passes: &[
            "chmod -R 755 ./public",
            "sudo chown -R $(whoami) /usr/local/lib/node_modules",
            "chown -R node:node /app",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES006",
        category: Category::Destructive,
        severity: Severity::Medium,
        message: "Makes files world-writable",
        explanation: "Detects `chmod 777`, `a+rwx`, `o+w` and `0o777` in code. World-writable files let any local user or process replace scripts the agent later runs. Instead, use the narrowest mode that works, such as `755` for executables and `644` for data.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)chmod[ \t]+(?:-[a-z]+[ \t]+)*(?:0?777|a\+rwx|ugo\+rwx|o\+w|a\+w)(?-u:\b)|(?-u:\b)(?:os\.chmod|fs\.chmod(?:Sync)?|chmodSync)[ \t]*\([^\n]*?(?-u:\b)0o?777(?-u:\b)"#,
        ),
        fires: &[
            "chmod 777 /var/run/docker.sock",
            "chmod -R 0777 storage/",
            "os.chmod(path, 0o777)",
        ],
        passes: &[
            "chmod +x scripts/run.sh",
            "chmod 755 bin/tool",
            "chmod 600 ~/.ssh/config",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES007",
        category: Category::Destructive,
        severity: Severity::Medium,
        message: "Force-pushes over remote history",
        explanation: "Detects `git push --force`, `git push -f` and `+refspec` pushes. A force push rewrites the remote branch and silently drops commits other people pushed. Instead, use `git push --force-with-lease` on your own branch, and never force-push shared branches from a skill.",
        matcher: Matcher::Text(
            r#"(?im)(?-u:\b)git[ \t]+push(?-u:\b)[^\n;&|]*?(?:[ \t]--force(?:\s|$)|[ \t]-f(?:\s|$)|[ \t]\+[\w/.:-]+)"#,
        ),
        fires: &[
            "git push --force origin main",
            "git push -f",
            "git push origin +HEAD:main",
        ],
        passes: &[
            "git push --force-with-lease origin feature/x",
            "git push origin main",
            "git push -u origin HEAD",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES008",
        category: Category::Destructive,
        severity: Severity::Medium,
        message: "Discards uncommitted work in the repository",
        explanation: "Detects `git reset --hard`, `git clean -fd`, `git checkout -- .`, `git restore .` and `git stash clear`. Run by an agent in the user's working tree, they throw away changes that were never committed and cannot be recovered. Instead, stash or commit first, or work in a separate worktree the skill creates.",
        matcher: Matcher::Text(
            r#"(?im)(?-u:\b)git[ \t]+(?:reset[ \t]+(?:-\S+[ \t]+)*--hard(?-u:\b)|clean[ \t]+(?:-\S+[ \t]+)*-[a-z]*(?:fd|df|f[a-z]*d|d[a-z]*f)[a-z]*(?-u:\b)|checkout[ \t]+--[ \t]+\.(?:\s|$)|restore[ \t]+(?:--\S+[ \t]+)*\.(?:\s|$)|stash[ \t]+clear(?-u:\b))"#,
        ),
        fires: &[
            "git reset --hard origin/main",
            "git clean -fdx",
            "git checkout -- .",
        ],
        passes: &[
            "git reset --soft HEAD~1",
            "git clean -n",
            "git checkout -- README.md",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES009",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Deletes shadow copies or disables system recovery",
        explanation: "Detects `vssadmin delete shadows`, `wmic shadowcopy delete`, `wbadmin delete` and `bcdedit ... recoveryenabled no`. Ransomware runs exactly these commands so that the victim cannot restore encrypted files. Instead, a skill has no reason to touch backups or recovery settings.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)vssadmin(?:\.exe)?[ \t]+delete[ \t]+shadows(?-u:\b)|(?-u:\b)wmic(?:\.exe)?[ \t]+shadowcopy[ \t]+delete(?-u:\b)|(?-u:\b)wbadmin(?:\.exe)?[ \t]+delete[ \t]+(?:catalog|backup|systemstatebackup)(?-u:\b)|(?-u:\b)bcdedit(?:\.exe)?(?-u:\b)[^\n]*?(?-u:\b)recoveryenabled[ \t]+no(?-u:\b)"#,
        ),
        fires: &[
            "vssadmin delete shadows /all /quiet",
            "wmic shadowcopy delete",
            "bcdedit /set {default} recoveryenabled No",
        ],
        passes: &[
            "vssadmin list shadows",
            "wbadmin get versions",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "DES010",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Fork bomb",
        explanation: "Detects the shell fork bomb `:(){ :|:& };:`, any shell function whose body pipes itself into a background copy of itself, and `while True: os.fork()`. It exhausts the process table and freezes the machine until reboot. Instead, there is no legitimate use in a skill; remove it.",
        matcher: Matcher::Text(
            r#"(?m)(?:^|[^"'\x{201C}\x{2018}\w-]|(?:-c|eval|exec|system|popen|run|spawn|call|check_output|check_call|execSync|Popen|shell_exec|passthru|getoutput)[ \t]*\(?[ \t]*["']|["']?(?:command|cmd|run|script|exec|shell|entrypoint|postinstall|preinstall|install|postCreateCommand)["']?[ \t]*[:=][ \t]*\[?[ \t]*["']):[ \t]*\([ \t]*\)[ \t]*\{[ \t]*:[ \t]*\|[ \t]*:[ \t]*&[ \t]*\}[ \t]*;[ \t]*:|(?-u:\b)[A-Za-z_]\w*[ \t]*\([ \t]*\)[ \t]*\{[ \t]*[A-Za-z_]\w*[ \t]*\|[ \t]*[A-Za-z_]\w*[ \t]*&[ \t]*\}|(?-u:\b)while[ \t]+True[ \t]*:[ \t]*os\.fork\(\)"#,
        ),
        fires: &[
            ":(){ :|:& };:",
            "bomb() { bomb | bomb & }; bomb",
            "while True: os.fork()",
        ],
        passes: &[
            "build() { make -j4; }",
            "pid = os.fork()",
            "DENY = [\":(){ :|:& };:\"]",
        ],
        prefilter: Some(may_fork_bomb),
        ..Rule::PLAIN
    },
    Rule {
        id: "DES011",
        category: Category::Destructive,
        severity: Severity::Critical,
        message: "Unfiltered find-and-delete from the root or home directory",
        explanation: "Detects `find /`, `find ~` or `find $HOME` with `-delete` or `-exec rm` and no name or path filter in between. It deletes every file it can reach. Instead, run find on a directory the skill owns and filter with `-name` or `-path`.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)find[ \t]+["']?(?:/|~|\$HOME|\$\{HOME\})["']?[ \t]+(?:-(?:mindepth|maxdepth|xdev|depth|type|mount|ignore_readdir_race)(?:[ \t]+[\w\d]+)?[ \t]+)*(?:-delete(?-u:\b)|-exec[ \t]+(?:sudo[ \t]+)?(?:rm|shred|unlink)(?-u:\b))"#,
        ),
        fires: &[
            "find / -delete",
            "find ~ -type f -exec rm -f {} +",
            "find \"$HOME\" -mindepth 1 -delete",
        ],
        passes: &[
            "find . -name '*.pyc' -delete",
            "find /var/log -name '*.gz' -mtime +30 -delete",
            "find ~ -name .DS_Store -delete",
        ],
        ..Rule::PLAIN
    },
    DES020,
    DES021,
];

/// On syntax trees (`guard::analysis`).
pub const DES020: Rule = Rule {
    id: "DES020",
    category: Category::Destructive,
    severity: Severity::Critical,
    message: "Recursive delete of the root, home, a system directory or the system logs",
    explanation: "Detects, on the syntax tree of shell code (also the command strings JavaScript runs through `child_process`) and PowerShell (`Remove-Item`/`rm`/`del` with `-Recurse` in any prefix, on a drive root, `~`, `$HOME`, `$env:USERPROFILE` or a Windows system directory), `rm` with a recursive flag in any spelling (`-r -f`, `-fr`, `--recursive --force`, split over continued lines, after `sudo`/`env`/`xargs`/`sh -c`), or `find` with `-delete` or `-exec rm` not narrowed by a name pattern, whose operand, once quotes, `$HOME` and constant variables are resolved, is `/`, the home directory, a top-level system directory or the system logs (`/var/log`, shell history): the last is how intruders hide their tracks. Instead, delete only paths the skill created, spelled out relative to a directory it owns.",
    matcher: Matcher::Analysis,
    fires: &[
        "rm -r \\\n  -f \\\n  \"$HOME\"/",
        "d=/usr\nsudo rm -fr \"$d\"",
        "t=~\nrm --recursive --force \"$t\"/*",
        "rm -rf /tmp/.c/* /var/log/app/*",
        "T=/; rm -rf \"$T\"",
        "sh -c 'rm -rf \"$HOME\"'",
        "#!/usr/bin/env pwsh\n$t = $env:USERPROFILE\nRemove-Item -Path $t -Recurse -Force\n",
        "#!/usr/bin/env node\nconst { spawnSync } = require(\"child_process\");\nconst h = process.env.HOME;\nspawnSync(\"rm\", [\"-rf\", h]);\n",
        "TARGET=\"${HOME}\"\nfind \"$TARGET\" -type f -mtime +1 -exec rm -rf {} +",
        "find / -name '*' -delete",
    ],
    passes: &[
        "rm -rf ./dist",
        "find \"$HOME\" -name '*.pyc' -delete",
        "find ./build -type f -delete",
        "rm -rf \"$HOME/.cache/my-skill\"",
        "rm -rf /var/lib/apt/lists/*",
        "rm -f /tmp/x",
        "rm -r build/",
        "#!/usr/bin/env pwsh\nRemove-Item -Recurse -Force .\\build\n",
        "#!/usr/bin/env node\nrequire(\"child_process\").execSync(\"rm -rf ./dist\");\n",
    ],
    fixture: "scripts/check.sh",
    ..Rule::PLAIN
};

/// On syntax trees (`guard::analysis`).
pub const DES021: Rule = Rule {
    id: "DES021",
    category: Category::Destructive,
    severity: Severity::Critical,
    message: "Writes to or wipes a block device",
    explanation: "Detects, on the syntax tree of shell and PowerShell code (`Format-Volume`, `Clear-Disk`, `Initialize-Disk`, `Remove-Partition`), `dd of=` a device, and `mkfs*`, `mke2fs`, `mkswap`, `wipefs`, `shred`, `sgdisk`, `sfdisk`, `fdisk`, `parted`, `blkdiscard` or `cryptsetup` on a device: a `/dev/...` path, or a variable that came from `lsblk`, `blkid` or `fdisk -l`. One run destroys a disk. Instead, build images into a file (`dd of=disk.img`, `mkfs.ext4 disk.img`).",
    matcher: Matcher::Analysis,
    fires: &[
        "DEV=$(lsblk -ndo NAME | head -1); dd if=/dev/urandom of=\"$DEV\" bs=4M",
        "DEV=$(lsblk -ndo PATH); mkfs.ext4 -F \"$DEV\"",
        "d=/dev/sda\ndd if=/dev/zero of=$d",
        "disk=/dev/nvme0n1\nwipefs -a \"$disk\"",
        "t=/dev/sdb\nshred -n 3 $t",
        "#!/usr/bin/env pwsh\nRemove-Partition -DiskNumber 1 -PartitionNumber 2 -Confirm:$false\n",
    ],
    passes: &[
        "dd if=/dev/zero of=disk.img bs=1M count=10",
        "mkfs.ext4 disk.img",
        "shred -u secrets.txt",
        "dd if=/dev/urandom of=/dev/null count=1",
        "lsblk -o NAME,SIZE",
        "#!/usr/bin/env pwsh\nGet-Volume | Format-Table\n",
    ],
    fixture: "scripts/check.sh",
    ..Rule::PLAIN
};

/// DES010: both shell forms end their body with `&` and `}`, the Python one calls `os.fork`.
/// The regex has no literal the index can use (`(`, `|`, `&`), so without this it read every
/// script and document whole.
pub(crate) fn may_fork_bomb(text: &str) -> bool {
    text.contains("os.fork")
        || text.match_indices('&').any(|(at, _)| {
            text[at + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with('}')
        })
}
