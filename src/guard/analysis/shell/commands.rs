//! Rules on commands with their arguments: which device `dd` writes, what `rm -r` deletes,
//! which mode `chmod` and `install` set, where a secret is sent, whether downloaded code runs,
//! and which system or agent file a command writes.

use std::collections::{HashMap, HashSet};

use super::super::secrets::{self, credential_path, home_relative, loopback, url_host};
use super::super::taint::{
    self, Taint, DECODED, DEVICE, DOWNLOAD, FILE, SECRET, SOCKET, TRANSCODED, VARIABLE,
};
use super::super::typosquat;
use super::super::Hit;
use super::words::{credential_taint, Value};
use super::Command;
use crate::guard::rule::Rule;
use crate::guard::rules::{
    destructive::{DES020, DES021},
    execution::EXE020,
    exfiltration::{EXF020, EXF021, EXF022},
    network::NET020,
    obfuscation::{OBF020, OBF021, OBF023},
    persistence::{PER020, PER021, PER022, PER023},
    privilege_escalation::{PRV020, PRV021, PRV022},
    supply_chain::{SUP020, SUP021},
};

/// A hit about what flowed in through standard input, at the start of its pipeline.
fn flow_hit(out: &mut Vec<Hit>, rule: &'static Rule, cmd: &Command) {
    out.push(Hit {
        rule,
        start: cmd.flow_start,
        end: cmd.end,
    });
}

fn hit(out: &mut Vec<Hit>, rule: &'static Rule, cmd: &Command) {
    out.push(Hit {
        rule,
        start: cmd.start,
        end: cmd.end,
    });
}

pub enum Unwrapped {
    /// Not a wrapper.
    Same,
    /// The wrapped program (`sudo -E rm ...` -> `rm ...`).
    Program(Box<Command>),
    /// A string run as shell (`sh -c S`, `eval S`, `su -c S`).
    Script(Value),
}

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "busybox"];
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "fish",
    "python",
    "python3",
    "python2",
    "perl",
    "ruby",
    "node",
    "php",
    "pwsh",
    "powershell",
    "iex",
    "source",
    ".",
    "lua",
    "tclsh",
    "osascript",
];
const DOWNLOADERS: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "curlie",
];

pub fn is_downloader(name: &str) -> bool {
    DOWNLOADERS.contains(&name)
}

fn interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name)
        || name.starts_with("python3.")
        || name.starts_with("php")
        || name.starts_with("perl")
}

/// Options of wrappers that take a value (`sudo -u USER`, `timeout -s SIG`).
fn takes_value(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "sudo" | "doas" => matches!(
            opt,
            "-u" | "-g"
                | "-C"
                | "-D"
                | "-h"
                | "-p"
                | "-U"
                | "-r"
                | "-t"
                | "-T"
                | "--user"
                | "--group"
                | "--chdir"
                | "--prompt"
        ),
        "env" => matches!(opt, "-u" | "-C" | "-S" | "--unset" | "--chdir"),
        "timeout" => matches!(opt, "-s" | "-k" | "--signal" | "--kill-after"),
        "nice" => matches!(opt, "-n" | "--adjustment"),
        "ionice" => matches!(opt, "-c" | "-n" | "-p"),
        "xargs" => matches!(opt, "-I" | "-n" | "-P" | "-L" | "-d" | "-s" | "-E" | "-a"),
        "stdbuf" => false,
        _ => false,
    }
}

pub fn unwrap(cmd: &Command) -> Unwrapped {
    let name = cmd.name.as_str();
    let wrapper = matches!(
        name,
        "sudo"
            | "doas"
            | "env"
            | "nohup"
            | "time"
            | "nice"
            | "ionice"
            | "exec"
            | "command"
            | "builtin"
            | "timeout"
            | "stdbuf"
            | "xargs"
            | "setsid"
            | "unbuffer"
            | "chronic"
            | "caffeinate"
            | "torsocks"
            | "proxychains"
            | "proxychains4"
    );
    if wrapper {
        let mut i = 0;
        let args = &cmd.args;
        while i < args.len() {
            let a = args[i].text.as_str();
            if a == "--" {
                i += 1;
                break;
            }
            if a.starts_with('-') && a.len() > 1 {
                i += if takes_value(name, a) { 2 } else { 1 };
                continue;
            }
            if name == "env" && a.contains('=') {
                i += 1;
                continue;
            }
            if name == "timeout" && a.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            break;
        }
        let Some(prog) = args.get(i) else {
            return Unwrapped::Same;
        };
        let mut next = cmd.clone();
        next.name = super::program_name(&prog.text);
        next.name_value = prog.clone();
        next.args = args[i + 1..].to_vec();
        if name == "xargs" {
            // Items from standard input become arguments.
            for a in &mut next.args {
                a.taint.add(&cmd.stdin);
            }
            if next.args.is_empty() {
                next.args.push(Value {
                    taint: cmd.stdin.clone(),
                    ..Value::literal("")
                });
            }
        }
        return Unwrapped::Program(Box::new(next));
    }
    if name == "eval" && !cmd.args.is_empty() {
        return Unwrapped::Script(join(&cmd.args));
    }
    if SHELLS.contains(&name) || name == "su" {
        if let Some(pos) = cmd.args.iter().position(|a| {
            let t = a.text.as_str();
            t == "-c" || t.starts_with('-') && !t.starts_with("--") && t.ends_with('c')
        }) {
            if let Some(script) = cmd.args.get(pos + 1) {
                return Unwrapped::Script(script.clone());
            }
        }
    }
    Unwrapped::Same
}

fn join(args: &[Value]) -> Value {
    let mut v = Value::literal("");
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            v.text.push(' ');
        }
        v.text.push_str(&a.text);
        v.known &= a.known;
        v.taint.add(&a.taint);
    }
    v
}

/// `./x`, `"x"` -> `x`, home spelled `~`.
pub fn norm_path(p: &str) -> String {
    let h = home_relative(p);
    h.strip_prefix("./").unwrap_or(&h).to_owned()
}

/// Splits arguments into option letters, long options and operands (`rm -r -f`, `-fr`,
/// `--recursive --force`, `--` ends options).
struct Argv<'a> {
    short: HashSet<char>,
    long: HashSet<String>,
    operands: Vec<&'a Value>,
}

fn argv(args: &[Value]) -> Argv<'_> {
    let mut out = Argv {
        short: HashSet::new(),
        long: HashSet::new(),
        operands: Vec::new(),
    };
    let mut ended = false;
    for a in args {
        let t = a.text.as_str();
        if ended || !t.starts_with('-') || t == "-" {
            out.operands.push(a);
        } else if t == "--" {
            ended = true;
        } else if let Some(l) = t.strip_prefix("--") {
            out.long
                .insert(l.split('=').next().unwrap_or(l).to_ascii_lowercase());
        } else {
            out.short.extend(t[1..].chars());
        }
    }
    out
}

/// Directories whose removal or opening to everyone breaks the system, and the logs an
/// intruder deletes to hide.
fn system_path(p: &str) -> bool {
    let p = norm_path(p);
    let p = p.trim_end_matches("/*").trim_end_matches("/.");
    let p = if p.len() > 1 {
        p.trim_end_matches('/')
    } else {
        p
    };
    const TOP: &[&str] = &[
        "/",
        "~",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib64",
        "/lib32",
        "/opt",
        "/root",
        "/sbin",
        "/srv",
        "/sys",
        "/usr",
        "/var",
        "/Users",
        "/System",
        "/Applications",
        "/Library",
        "/private",
        "/usr/bin",
        "/usr/lib",
        "/usr/local",
        "/usr/local/bin",
        "/usr/sbin",
        "/usr/share",
        "/var/lib",
        "/etc/ssh",
        "~/.ssh",
        "~/Documents",
        "~/Desktop",
        "/*",
        "~/*",
    ];
    TOP.contains(&p) || p.is_empty()
}

fn log_path(p: &str) -> bool {
    let p = norm_path(p);
    p == "/var/log" || p.starts_with("/var/log/") || p.ends_with("_history") && p.starts_with("~/")
}

fn device_path(p: &str) -> bool {
    let p = p.trim_matches('"');
    p.starts_with("/dev/")
        && ![
            "/dev/null",
            "/dev/zero",
            "/dev/stdout",
            "/dev/stderr",
            "/dev/stdin",
            "/dev/tty",
            "/dev/urandom",
            "/dev/random",
        ]
        .contains(&p)
        && !p.starts_with("/dev/fd/")
        && !p.starts_with("/dev/shm/")
        && !p.starts_with("/dev/tcp/")
        && !p.starts_with("/dev/udp/")
        && !p.starts_with("/dev/pts/")
}

/// The rules on one command.
/// Files a download wrote, each with where that download is in the script being walked
/// (`None` when it is in another block or a nested string): running one is reported at the
/// line that fetched it, where the URL is.
pub type Downloads = HashMap<String, Option<(usize, usize)>>;

pub fn check(cmd: &Command, downloaded: &Downloads, out: &mut Vec<Hit>) {
    let name = cmd.name.as_str();
    obfuscated_name(cmd, out);
    if installed_packages(cmd)
        .iter()
        .any(|p| typosquat::misspelling(p).is_some())
    {
        hit(out, &SUP021, cmd);
    }
    match name {
        "rm" | "unlink" => {
            let a = argv(&cmd.args);
            let recursive =
                a.short.contains(&'r') || a.short.contains(&'R') || a.long.contains("recursive");
            if recursive
                && a.operands
                    .iter()
                    .any(|o| system_path(&o.text) || log_path(&o.text))
                || a.operands
                    .iter()
                    .any(|o| log_path(&o.text) && o.text.contains('*'))
            {
                hit(out, &DES020, cmd);
            }
        }
        "find" if find_deletes_everything(cmd) => hit(out, &DES020, cmd),
        "dd" if cmd.args.iter().any(|a| {
            a.text
                .strip_prefix("of=")
                .is_some_and(|t| device_path(t) || a.taint.has(DEVICE))
        }) =>
        {
            hit(out, &DES021, cmd);
        }
        n if n.starts_with("mkfs")
            || matches!(
                n,
                "mke2fs"
                    | "mkswap"
                    | "wipefs"
                    | "shred"
                    | "sgdisk"
                    | "sfdisk"
                    | "fdisk"
                    | "parted"
                    | "blkdiscard"
                    | "cryptsetup"
                    | "mkntfs"
                    | "mkdosfs"
            ) =>
        {
            let a = argv(&cmd.args);
            if a.operands
                .iter()
                .any(|o| device_path(&o.text) || o.taint.has(DEVICE))
            {
                hit(out, &DES021, cmd);
            }
        }
        "chmod" => {
            let a = argv(&cmd.args);
            let Some((mode, targets)) = a.operands.split_first() else {
                return;
            };
            let mode_text = mode.text.as_str();
            if setuid_mode(mode_text) {
                hit(out, &PRV020, cmd);
            } else if world_writable(mode_text) && targets.iter().any(|t| system_tree(&t.text)) {
                hit(out, &PRV021, cmd);
            }
        }
        "install" => {
            let mut it = cmd.args.iter();
            while let Some(a) = it.next() {
                let mode = if a.text == "-m" || a.text == "--mode" {
                    it.next().map(|m| m.text.clone())
                } else {
                    a.text
                        .strip_prefix("--mode=")
                        .or_else(|| a.text.strip_prefix("-m").filter(|m| !m.is_empty()))
                        .map(str::to_owned)
                };
                if mode.is_some_and(|m| setuid_mode(&m)) {
                    hit(out, &PRV020, cmd);
                    break;
                }
            }
        }
        "crontab" => {
            let a = argv(&cmd.args);
            // `crontab FILE` or `crontab -` installs a table; -l lists, -e edits by hand.
            if !a.short.contains(&'l')
                && !a.short.contains(&'e')
                && !a.short.contains(&'r')
                && (!a.operands.is_empty() || cmd.args.iter().any(|v| v.text == "-"))
            {
                hit(out, &PER020, cmd);
            }
        }
        "systemctl" | "launchctl" => {
            let sub = cmd.args.iter().find(|a| !a.text.starts_with('-'));
            if sub.is_some_and(|s| {
                matches!(s.text.as_str(), "enable" | "load" | "bootstrap" | "submit")
            }) && cmd
                .args
                .iter()
                .any(|a| a.text.contains("/tmp/") || a.text.contains("/."))
            {
                hit(out, &PER020, cmd);
            }
        }
        _ => {}
    }
    network(cmd, out);
    remote_code(cmd, downloaded, out);
}

fn obfuscated_name(cmd: &Command, out: &mut Vec<Hit>) {
    const WATCHED: &[&str] = &[
        "curl",
        "wget",
        "bash",
        "sh",
        "zsh",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "rm",
        "dd",
        "mkfs",
        "chmod",
        "chown",
        "base64",
        "eval",
        "exec",
        "sudo",
        "crontab",
        "ssh",
        "scp",
        "openssl",
        "xxd",
        "telnet",
        "php",
        "powershell",
        "pwsh",
        "osascript",
        "nohup",
        "kill",
        "pkill",
        "shred",
        "wipefs",
        "tee",
    ];
    if cmd.name_value.assembled && cmd.name_value.known && WATCHED.contains(&cmd.name.as_str()) {
        hit(out, &OBF020, cmd);
    }
}

/// `4755`, `u+s`, `+s`, `g+s`, `6755`.
/// The names of the packages a package manager is told to fetch: `npx X`, `npm i X`,
/// `pip install X==1`, `uvx X`, `cargo install X`; paths, URLs and requirement files are not
/// names.
fn installed_packages(cmd: &Command) -> Vec<&str> {
    let args: Vec<&str> = cmd.args.iter().map(|a| a.text.as_str()).collect();
    let operands = |from: usize| -> Vec<&str> {
        let mut out = Vec::new();
        let mut skip = false;
        for a in args.iter().skip(from) {
            if skip {
                skip = false;
                continue;
            }
            // `npm exec --package=NAME`; in `npx -p NAME cmd` NAME is the first operand.
            let a: &str = a.strip_prefix("--package=").unwrap_or(a);
            if matches!(
                a,
                "-r" | "-e"
                    | "-c"
                    | "--requirement"
                    | "--editable"
                    | "--constraint"
                    | "--index-url"
                    | "-i"
                    | "--registry"
                    | "--extra-index-url"
            ) {
                skip = true;
                continue;
            }
            if a.starts_with('-') || a.contains("://") || a.starts_with('.') {
                continue;
            }
            // `@scope/name@1.2`, `name[extra]>=2`: the name is what is squatted.
            let bare = a.strip_prefix('@').unwrap_or(a);
            let bare = bare.rsplit('/').next().unwrap_or(bare);
            let end = bare
                .find(['@', '=', '<', '>', '~', '!', '[', ';', ' '])
                .unwrap_or(bare.len());
            if end > 0 {
                out.push(&bare[..end]);
            }
        }
        out
    };
    let sub = |names: &[&str]| args.iter().position(|a| names.contains(a));
    match cmd.name.as_str() {
        "npx" | "bunx" | "pnpx" | "uvx" => operands(0).into_iter().take(1).collect(),
        "npm" | "pnpm" | "yarn" | "bun" => sub(&["install", "i", "add", "exec", "x", "dlx"])
            .map(|i| operands(i + 1))
            .unwrap_or_default(),
        "python" | "python3" if args.get(..2) == Some(&["-m", "pip"][..]) => sub(&["install"])
            .map(|i| operands(i + 1))
            .unwrap_or_default(),
        "pip" | "pip3" | "pipx" | "uv" | "gem" | "cargo" | "poetry" | "conda" | "mamba" => {
            sub(&["install", "add", "run"])
                .map(|i| operands(i + 1))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// `find ROOT ... -delete` or `-exec rm ... {}` over the root, the home directory or a system
/// directory, not narrowed to some files by name (`-name '*.pyc'` is a clean-up; `-type f`,
/// `-mtime +1` or `-name '*'` take everything).
fn find_deletes_everything(cmd: &Command) -> bool {
    let args: Vec<&str> = cmd.args.iter().map(|a| a.text.as_str()).collect();
    let roots = args
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(**a, "(" | "!"))
        .copied();
    let mut roots = roots.peekable();
    if roots.peek().is_none() || !roots.any(system_path) {
        return false;
    }
    let deletes = args.iter().enumerate().any(|(i, a)| {
        *a == "-delete"
            || matches!(*a, "-exec" | "-execdir" | "-ok" | "-okdir")
                && args.get(i + 1).is_some_and(|p| {
                    matches!(p.rsplit('/').next(), Some("rm" | "shred" | "unlink"))
                })
    });
    let narrowed = args.windows(2).any(|w| {
        matches!(
            w[0],
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-regex" | "-iregex"
        ) && !matches!(w[1], "*" | "*.*" | ".*")
    });
    deletes && !narrowed
}

fn setuid_mode(mode: &str) -> bool {
    let m = mode.trim_matches('"');
    if m.len() >= 4 && m.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let lead = m.as_bytes()[m.len() - 4] - b'0';
        return lead & 0b110 != 0;
    }
    m.split(',').any(|clause| {
        let ops = clause.trim_start_matches(['u', 'g', 'o', 'a']);
        ops.starts_with(['+', '=']) && ops[1..].contains('s')
    })
}

/// `777`, `a+rwx`, `o+w`, `-R 777`.
fn world_writable(mode: &str) -> bool {
    let m = mode.trim_matches('"');
    if !m.is_empty() && m.len() <= 4 && m.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let last = m.as_bytes()[m.len() - 1] - b'0';
        return last & 0b010 != 0;
    }
    m.split(',').any(|clause| {
        let who = clause.find(['+', '=']).map(|i| &clause[..i]).unwrap_or("");
        let perms = clause
            .find(['+', '='])
            .map(|i| &clause[i + 1..])
            .unwrap_or("");
        (who.is_empty() || who.contains('o') || who.contains('a')) && perms.contains('w')
    })
}

/// A system directory or anything under it (not the temporary directories).
fn system_tree(p: &str) -> bool {
    let p = norm_path(p);
    if p.starts_with("/tmp") || p.starts_with("/var/tmp") || p.starts_with("/dev/shm") {
        return false;
    }
    const ROOTS: &[&str] = &[
        "/bin",
        "/boot",
        "/etc",
        "/lib",
        "/opt",
        "/root",
        "/sbin",
        "/srv",
        "/usr",
        "/var",
        "/System",
        "/Library",
        "/Applications",
    ];
    p == "/"
        || ROOTS
            .iter()
            .any(|r| p == *r || p.starts_with(&format!("{r}/")))
}

/// Commands that send data to another host, and how their arguments are read.
const NETWORK: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "ftp",
    "tftp",
    "http",
    "https",
    "xh",
    "curlie",
    "nslookup",
    "dig",
    "host",
    "drill",
    "ping",
    "mail",
    "mailx",
    "sendmail",
    "smbclient",
    "aws",
    "gsutil",
    "rclone",
    "openssl",
];

/// curl and wget options whose value is a header or credential sent to the host (the vendor
/// exemption applies to them) and options whose value is sent as data.
fn curl_option(opt: &str) -> Option<bool> {
    match opt {
        "-H" | "--header" | "-u" | "--user" | "-b" | "--cookie" | "--oauth2-bearer"
        | "--proxy-user" | "-U" => Some(true),
        "-d" | "--data" | "--data-raw" | "--data-binary" | "--data-urlencode" | "--data-ascii"
        | "-F" | "--form" | "--form-string" | "-T" | "--upload-file" | "--json" | "--post-data"
        | "--post-file" | "--body-data" | "--body-file" | "--url" | "-e" | "--referer" | "-A"
        | "--user-agent" | "--url-query" => Some(false),
        _ => None,
    }
}

/// Options that take a value without sending it.
fn curl_value_option(opt: &str) -> bool {
    matches!(
        opt,
        "-o" | "--output"
            | "-X"
            | "--request"
            | "-x"
            | "--proxy"
            | "-K"
            | "--config"
            | "-c"
            | "--cookie-jar"
            | "-w"
            | "--write-out"
            | "-m"
            | "--max-time"
            | "--retry"
            | "--connect-timeout"
            | "-C"
            | "--cacert"
            | "--cert"
            | "--key"
            | "-E"
            | "-O"
            | "--output-document"
            | "-P"
            | "--directory-prefix"
            | "-t"
            | "--tries"
            | "-T0"
            | "--resolve"
            | "--connect-to"
            | "-r"
            | "--range"
            | "-z"
            | "--time-cond"
            | "--limit-rate"
            | "--max-filesize"
    )
}

fn network(cmd: &Command, out: &mut Vec<Hit>) {
    let name = cmd.name.as_str();
    if !NETWORK.contains(&name) {
        return;
    }
    // What is sent: (taint, only in a header), and the destination hosts.
    let mut header = Taint::default();
    let mut data = cmd.stdin.clone();
    let mut hosts: Vec<(String, bool)> = Vec::new(); // (host, known)
    let mut dns_name_taint = Taint::default();
    let web = matches!(name, "curl" | "wget" | "http" | "https" | "xh" | "curlie");
    let mut i = 0;
    while i < cmd.args.len() {
        let a = &cmd.args[i];
        let t = a.text.as_str();
        if web {
            let (opt, inline) = match t.split_once('=') {
                Some((o, v)) if o.starts_with("--") => (o, Some(v)),
                _ => (t, None),
            };
            if let Some(is_header) = curl_option(opt) {
                let value = match inline {
                    Some(_) => Some(a),
                    None => {
                        i += 1;
                        cmd.args.get(i)
                    }
                };
                if let Some(v) = value {
                    let mut taint = v.taint.clone();
                    // `-d @~/.netrc`, `-F f=@~/.ssh/id_rsa`, `-T ~/.aws/credentials`.
                    let file = v.text.rsplit('@').next().unwrap_or("");
                    if (v.text.contains('@')
                        || matches!(opt, "-T" | "--upload-file" | "--post-file" | "--body-file"))
                        && credential_path(if v.text.contains('@') { file } else { &v.text })
                    {
                        taint.add(&credential_taint());
                    }
                    if opt == "--url" {
                        if let Some(h) = url_host(&v.text) {
                            hosts.push((h.to_owned(), v.known || !h.contains('$')));
                        }
                    }
                    if is_header {
                        header.add(&taint);
                    } else {
                        data.add(&taint);
                    }
                }
                i += 1;
                continue;
            }
            if curl_value_option(opt) && inline.is_none() {
                i += 2;
                continue;
            }
            if t.starts_with('-') {
                i += 1;
                continue;
            }
            // An operand: the URL. Data in its query or path is sent.
            match url_host(t) {
                Some(h) => {
                    let host_known = !h.contains('$') && !h.contains('{');
                    hosts.push((h.to_owned(), host_known));
                    if a.taint.has(SECRET) && host_part_tainted(a) {
                        dns_name_taint.add(&a.taint);
                    }
                }
                None if !t.contains('/') && t.contains('.') => hosts.push((t.to_owned(), a.known)),
                None => {}
            }
            data.add(&a.taint);
            i += 1;
            continue;
        }
        match name {
            "nslookup" | "dig" | "host" | "drill" | "ping" => {
                if !t.starts_with('-') && !t.starts_with('@') && !t.starts_with('+') {
                    if a.taint.has(SECRET) {
                        dns_name_taint.add(&a.taint);
                    } else if let Some(var) = dns_payload_label(t) {
                        dns_name_taint.add(&Taint::secret(var));
                    }
                    hosts.push((t.to_owned(), a.known));
                }
            }
            "ssh" | "scp" | "sftp" | "rsync" => {
                if t == "-i"
                    || t == "-p"
                    || t == "-P"
                    || t == "-o"
                    || t == "-F"
                    || t == "-l"
                    || t == "-J"
                    || t == "-e"
                {
                    i += 2;
                    continue;
                }
                if t.starts_with('-') {
                    i += 1;
                    continue;
                }
                if let Some((h, _)) = t.split_once(':') {
                    let h = h.rsplit('@').next().unwrap_or(h);
                    hosts.push((h.to_owned(), a.known));
                } else if name == "ssh" && hosts.is_empty() {
                    hosts.push((t.rsplit('@').next().unwrap_or(t).to_owned(), a.known));
                } else {
                    if credential_path(t) {
                        data.add(&credential_taint());
                    }
                    data.add(&a.taint);
                }
            }
            "nc" | "ncat" | "netcat" | "telnet" | "socat" => {
                if !t.starts_with('-') && !t.chars().all(|c| c.is_ascii_digit()) {
                    let h = t
                        .strip_prefix("TCP:")
                        .or_else(|| t.strip_prefix("tcp:"))
                        .unwrap_or(t);
                    hosts.push((h.split(':').next().unwrap_or(h).to_owned(), a.known));
                }
                data.add(&a.taint);
            }
            _ => {
                if credential_path(t) {
                    data.add(&credential_taint());
                }
                if let Some(h) = url_host(t) {
                    hosts.push((h.to_owned(), a.known));
                } else if t.starts_with("s3://") || t.starts_with("gs://") {
                    hosts.push((t.to_owned(), true));
                }
                data.add(&a.taint);
            }
        }
        i += 1;
    }
    if dns_name_taint.has(SECRET) {
        hit(out, &EXF021, cmd);
        return;
    }
    // The destination or the request itself only appears once decoded: a hidden endpoint.
    if cmd.args.iter().any(|a| a.taint.has(DECODED)) {
        flow_hit(out, &OBF021, cmd);
    }
    // `nc -l -p 4444 -e /bin/sh`, `ncat --sh-exec`, `socat ... EXEC:bash`: a shell on a socket.
    if matches!(name, "nc" | "ncat" | "netcat" | "socat")
        && cmd.args.iter().any(|a| {
            let t = a.text.as_str();
            matches!(t, "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec")
                || t.starts_with("EXEC:")
                || t.starts_with("SYSTEM:")
                || t.starts_with("exec:")
        })
    {
        hit(out, &NET020, cmd);
    }
    let to_loopback = !hosts.is_empty() && hosts.iter().all(|(h, _)| loopback(h));
    if to_loopback {
        return;
    }
    let sends_secret_data = data.has(SECRET);
    let sends_secret_header = header.has(SECRET);
    if !sends_secret_data && !sends_secret_header {
        // Run-time data re-encoded on its way to a host the file names: what it is was hidden
        // from the reader on purpose.
        if cmd.stdin.has(TRANSCODED) && !hosts.is_empty() && hosts.iter().all(|(_, k)| *k) {
            flow_hit(out, &EXF022, cmd);
        }
        return;
    }
    let all = data.clone().union(&header);
    // A vendor's key sent to that vendor's host is how its API is used.
    if !hosts.is_empty() && hosts.iter().all(|(h, _)| all.vendor_owned(h)) {
        return;
    }
    if !sends_secret_data {
        // Only in headers: a configured key sent to a configured host (`$API_URL`) or a key
        // with no vendor in its name is ordinary API use; a vendor's key sent elsewhere is not.
        let unknown_host = hosts.iter().any(|(_, known)| !known);
        if unknown_host || header.generic_names_only() {
            return;
        }
    }
    if cmd.stdin.has(SECRET) {
        flow_hit(out, &EXF020, cmd);
    } else {
        hit(out, &EXF020, cmd);
    }
}

/// Whether a URL's tainted part sits in its host name (`https://$X.evil.example/`).
fn host_part_tainted(v: &Value) -> bool {
    let t = &v.text;
    let Some(i) = t.find("://") else { return false };
    let rest = &t[i + 3..];
    let host = rest.split('/').next().unwrap_or(rest);
    host.contains('$')
}

fn remote_code(cmd: &Command, downloaded: &Downloads, out: &mut Vec<Hit>) {
    let name = cmd.name.as_str();
    let runs_stdin = interpreter(name)
        && cmd
            .args
            .iter()
            .all(|a| a.text.starts_with('-') || a.text.is_empty() || a.text == "--")
        || name == "iex"
        || name == "invoke-expression";
    let ran = |t: &Taint| t.has(DOWNLOAD) || t.has(DECODED) || t.has(FILE) && !t.has(SECRET);
    if runs_stdin && ran(&cmd.stdin) && (cmd.stdin.has(DOWNLOAD) || cmd.stdin.has(DECODED)) {
        flow_hit(
            out,
            if cmd.stdin.has(SOCKET) {
                &NET020
            } else if cmd.stdin.has(DOWNLOAD) {
                &SUP020
            } else {
                &EXE020
            },
            cmd,
        );
        return;
    }
    // `bash <(curl ...)`, `source <(wget -O- ...)`, `python3 -c "$(curl ...)"`,
    // `eval "$(curl ...)"` (unwrapped to a script whose taint is checked here).
    if interpreter(name) || name == "eval" {
        for a in &cmd.args {
            if a.taint.has(DOWNLOAD) {
                hit(out, &SUP020, cmd);
                return;
            }
            if a.taint.has(DECODED) && !a.text.starts_with('-') {
                hit(out, &EXE020, cmd);
                return;
            }
        }
    }
    // Write, then run: the file a download wrote is executed or handed to an interpreter.
    let target = norm_path(&cmd.name_value.text);
    let script = if interpreter(name) {
        cmd.args
            .iter()
            .find(|a| !a.text.starts_with('-'))
            .map(|a| norm_path(&a.text))
    } else {
        None
    };
    let fetched = [Some(target), script]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .find_map(|t| downloaded.get(&t));
    match fetched {
        Some(Some((start, end))) => out.push(Hit {
            rule: &SUP020,
            start: *start,
            end: (*end).max(cmd.end),
        }),
        Some(None) => hit(out, &SUP020, cmd),
        None => {}
    }
}

/// Files a downloader writes: by option (`curl -o F`, `wget -O F`), or named after the URL
/// (`wget URL`, `curl -O URL`, `wget -P DIR URL`), which is how a download is then run in a
/// later step (`wget https://x/setup.sh && bash setup.sh`).
pub fn downloads_to(cmd: &Command) -> Vec<String> {
    if !is_downloader(&cmd.name) {
        return Vec::new();
    }
    let wget = cmd.name == "wget";
    let mut named = Vec::new();
    let mut urls = Vec::new();
    // wget names the file after the URL unless told otherwise; curl only with -O.
    let mut by_url = wget;
    let mut dir = String::new();
    let mut it = cmd.args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        let value_of = |long: &str| t.strip_prefix(long).map(str::to_owned);
        if matches!(t, "-o" | "--output") || wget && matches!(t, "-O" | "--output-document") {
            by_url = false;
            if let Some(f) = it.next() {
                if f.text != "-" {
                    named.push(norm_path(&f.text));
                }
            }
        } else if let Some(f) = value_of("--output=").or_else(|| value_of("--output-document=")) {
            by_url = false;
            named.push(norm_path(&f));
        } else if wget && matches!(t, "-P" | "--directory-prefix") {
            dir = it.next().map(|d| d.text.clone()).unwrap_or_default();
        } else if let Some(d) = value_of("--directory-prefix=") {
            dir = d;
        } else if !wget && (t == "--remote-name" || curl_remote_name(t)) {
            by_url = true;
        } else if t.contains("://") {
            urls.push(t);
        }
    }
    if by_url {
        for url in urls {
            let path = url.split(['?', '#']).next().unwrap_or(url);
            let file = path.rsplit('/').next().unwrap_or("");
            if !file.is_empty() && !path.ends_with("://") {
                let joined = if dir.is_empty() {
                    file.to_owned()
                } else {
                    format!("{}/{file}", dir.trim_end_matches('/'))
                };
                named.push(norm_path(&joined));
            }
        }
    }
    named
}

/// curl's `-O` alone or in a cluster of short options (`-fsSLO`, `-LO`).
fn curl_remote_name(arg: &str) -> bool {
    arg.strip_prefix('-').is_some_and(|c| {
        !c.starts_with('-') && c.contains('O') && c.chars().all(|c| c.is_ascii_alphabetic())
    })
}

/// Credential stores read by their own tools: what they print is a secret, whatever the
/// variable it lands in is called. The source names the vendor when the tool is a vendor's
/// own (`gh auth token` is GitHub's key: sent to api.github.com it is ordinary API use); a
/// store of the user's own secrets (the keychain, git's credential helpers, kubeconfig) has
/// none. Password managers (`op read`, `bw get`, `pass`) and Vault are left out: what they
/// hold is most often a key for the very API a skill then calls, and which vendor it belongs
/// to is not known from the command.
fn credential_tool(cmd: &Command) -> Option<&'static str> {
    let vendor = match cmd.name.as_str() {
        "gh" => "GH_TOKEN",
        "glab" => "GITLAB_TOKEN",
        "aws" => "AWS_SECRET",
        "gcloud" => "GCP_TOKEN",
        "az" => "AZURE_TOKEN",
        "heroku" => "HEROKU_TOKEN",
        "doppler" => "DOPPLER_TOKEN",
        "security" | "kubectl" | "git" => taint::CREDENTIAL_FILE,
        n if n.starts_with("docker-credential-") => taint::CREDENTIAL_FILE,
        // Any other command: nothing to read, nothing allocated (this runs for every command).
        _ => return None,
    };
    let words: Vec<&str> = cmd.args.iter().map(|a| a.text.as_str()).collect();
    let has = |w: &str| words.contains(&w);
    let pair = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
    let reads = match cmd.name.as_str() {
        "security" => words
            .iter()
            .any(|w| w.starts_with("find-") && w.ends_with("-password") || *w == "dump-keychain"),
        "gh" | "glab" => pair("auth", "token") || pair("config", "get") && has("token"),
        "aws" => {
            has("get-session-token")
                || has("export-credentials")
                || has("get-secret-value")
                || has("get-parameter") && has("--with-decryption")
                || pair("configure", "get")
                    && words
                        .iter()
                        .any(|w| matches!(*w, "aws_secret_access_key" | "aws_session_token"))
        }
        "gcloud" => {
            has("print-access-token") || has("print-identity-token") || pair("versions", "access")
        }
        "az" => has("get-access-token") || pair("secret", "show"),
        "doppler" => pair("secrets", "download"),
        "heroku" => has("auth:token"),
        "kubectl" => {
            pair("config", "view") && (has("--raw") || has("--flatten"))
                || pair("get", "secret")
                || pair("get", "secrets")
        }
        "git" => pair("credential", "fill"),
        n => n.starts_with("docker-credential-") && has("get"),
    };
    reads.then_some(vendor)
}

/// What a command writes to standard output.
pub fn output(cmd: &Command) -> Taint {
    let name = cmd.name.as_str();
    let mut t = Taint::default();
    const ENV_DUMPS: &[&str] = &[
        "env", "printenv", "set", "export", "declare", "compgen", "typeset",
    ];
    if ENV_DUMPS.contains(&name)
        && (cmd.args.is_empty()
            || cmd
                .args
                .iter()
                .all(|a| a.text.starts_with('-') || a.text == "-p"))
    {
        return Taint::secret(taint::ENVIRONMENT);
    }
    if name == "printenv" {
        for a in &cmd.args {
            if secrets::secret_name(&a.text) {
                t.add(&Taint::secret(&a.text));
            }
        }
    }
    if is_downloader(name) {
        let to_file = !downloads_to(cmd).is_empty()
            || name == "wget"
                && !cmd.args.iter().any(|a| {
                    a.text == "-O-" || a.text == "-qO-" || a.text == "-O" || a.text.ends_with("O-")
                });
        if !to_file || cmd.args.iter().any(|a| a.text == "-") {
            t.flags |= DOWNLOAD;
        }
        return t;
    }
    if let Some(source) = credential_tool(cmd) {
        return Taint::secret(source);
    }
    if matches!(name, "nc" | "ncat" | "netcat" | "socat" | "telnet") {
        return Taint::of(DOWNLOAD | SOCKET);
    }
    if matches!(
        name,
        "lsblk" | "blkid" | "findmnt" | "fdisk" | "diskutil" | "lsscsi"
    ) {
        return Taint::of(DEVICE);
    }
    const SILENT: &[&str] = &[
        "rm",
        "chmod",
        "chown",
        "mkdir",
        "touch",
        "ls",
        "test",
        "[",
        "[[",
        "cd",
        "mv",
        "cp",
        "ln",
        "stat",
        "ssh-keygen",
        "ssh-add",
        "install",
        "wc",
        "file",
    ];
    if SILENT.contains(&name) {
        return t;
    }
    // Readers and filters pass on what they read: files named as arguments, standard input,
    // and the words of `echo`/`printf`.
    for a in &cmd.args {
        if credential_path(&a.text) || secrets::account_list(&a.text) {
            t.add(&credential_taint());
        }
        t.add(&a.taint);
        if !a.known && a.text.starts_with("/dev/") {
            t.flags |= DEVICE;
        }
    }
    t.add(&cmd.stdin);
    if let Some(h) = &cmd.heredoc {
        t.add(&h.taint);
    }
    let decodes = matches!(name, "base64" | "base32" | "openssl" | "gpg")
        && cmd.args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-d" | "--decode" | "-D" | "-decode" | "--decrypt" | "-a"
            )
        })
        || name == "xxd" && cmd.args.iter().any(|a| a.text.starts_with("-r"))
        || matches!(name, "gunzip" | "zcat" | "uudecode" | "rev")
        || name == "printf" && cmd.args.first().is_some_and(|f| f.text.contains("\\x"));
    if decodes {
        t.flags |= DECODED;
    }
    if matches!(name, "echo" | "printf") && cmd.args.iter().any(|a| !a.known) {
        t.flags |= VARIABLE;
    }
    // Base64 or hex either way, of what only the run knows (a variable, a file, a secret).
    let encodes = matches!(name, "base64" | "base32" | "basenc")
        || name == "xxd" && cmd.args.iter().any(|a| a.text.starts_with("-p"))
        || name == "openssl" && cmd.args.first().is_some_and(|a| a.text == "base64");
    let transcoder =
        encodes || decodes && matches!(name, "base64" | "base32" | "basenc" | "xxd" | "openssl");
    if transcoder
        && (t.has(VARIABLE)
            || t.has(FILE)
            || t.has(SECRET)
            || cmd
                .args
                .iter()
                .any(|a| !a.text.starts_with('-') && a.text != "base64"))
    {
        t.flags |= TRANSCODED;
    }
    if matches!(
        name,
        "cat" | "head" | "tail" | "less" | "more" | "tar" | "zip" | "gzip" | "xz" | "bzip2"
    ) && !cmd.args.is_empty()
    {
        t.flags |= FILE;
    }
    t
}

/// Rules on what a command writes: redirections, `tee`, `cp`/`mv`/`install`/`ln`
/// destinations, `sed -i`.
pub fn check_writes(cmd: &Command, produced: &Taint, out: &mut Vec<Hit>) {
    let _ = produced;
    let mut targets: Vec<String> = cmd.writes.iter().map(|w| norm_path(&w.text)).collect();
    let name = cmd.name.as_str();
    match name {
        "tee" => targets.extend(
            cmd.args
                .iter()
                .filter(|a| !a.text.starts_with('-'))
                .map(|a| norm_path(&a.text)),
        ),
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            let a = argv(&cmd.args);
            if let Some(last) = a.operands.last() {
                if a.operands.len() >= 2 {
                    targets.push(norm_path(&last.text));
                }
            }
        }
        "sed" | "perl"
            if cmd
                .args
                .iter()
                .any(|a| a.text.starts_with("-i") || a.text == "--in-place") =>
        {
            if let Some(last) = cmd.args.last() {
                targets.push(norm_path(&last.text));
            }
        }
        _ => {}
    }
    if targets.is_empty() {
        return;
    }
    // What is written, when it can be known: echo/printf words, a here-document, stdin.
    let mut content = String::new();
    if matches!(name, "echo" | "printf" | "cat" | "tee" | "") {
        for a in &cmd.args {
            content.push_str(&a.text);
            content.push(' ');
        }
    }
    if let Some(h) = &cmd.heredoc {
        content.push_str(&h.text);
    }
    for target in &targets {
        let t = target.as_str();
        super::installs::config_written(t, &content, cmd, out);
        if t == "/etc/sudoers" || t.starts_with("/etc/sudoers.d/") {
            hit(out, &PRV022, cmd);
        } else if t.ends_with("/authorized_keys") || t.ends_with("/authorized_keys2") {
            hit(out, &PER021, cmd);
        } else if scheduled(t) {
            hit(out, &PER020, cmd);
        } else if startup_file(t) {
            if payload(&content) || cmd.stdin.has(DOWNLOAD) {
                hit(out, &PER022, cmd);
            }
        } else if agent_file(t) {
            hit(out, &PER023, cmd);
        } else if (t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/")) && produced.has(SECRET)
        {
            hit(out, &EXF020, cmd);
        } else if hidden_temp(t)
            && (produced.has(SOCKET) || produced.has(DOWNLOAD) && produced.has(DECODED))
        {
            hit(out, &OBF023, cmd);
        }
    }
}

/// A dot-file in a temporary directory: out of `ls`, wiped at reboot, a payload's stash.
fn hidden_temp(t: &str) -> bool {
    let Some((dir, name)) = t.rsplit_once('/') else {
        return false;
    };
    matches!(
        dir,
        "/tmp" | "/var/tmp" | "/dev/shm" | "$TMPDIR" | "${TMPDIR}"
    ) && name.starts_with('.')
        && name.len() > 1
        && name != ".."
}

fn scheduled(t: &str) -> bool {
    t.starts_with("/etc/cron")
        || t.starts_with("/var/spool/cron")
        || t == "/etc/anacrontab"
        || t.starts_with("/etc/systemd/")
        || t.starts_with("/lib/systemd/")
        || t.starts_with("/usr/lib/systemd/")
        || t.starts_with("~/.config/systemd/")
        || t.starts_with("~/Library/LaunchAgents")
        || t.starts_with("/Library/LaunchAgents")
        || t.starts_with("/Library/LaunchDaemons")
        || t.starts_with("/etc/init.d/")
        || t == "/etc/rc.local"
        || t.starts_with("~/.config/autostart/")
        || t.starts_with("/etc/xdg/autostart/")
}

fn startup_file(t: &str) -> bool {
    const HOME: &[&str] = &[
        "~/.bashrc",
        "~/.bash_profile",
        "~/.bash_login",
        "~/.profile",
        "~/.zshrc",
        "~/.zprofile",
        "~/.zshenv",
        "~/.zlogin",
        "~/.config/fish/config.fish",
        "~/.pam_environment",
    ];
    HOME.contains(&t)
        || t == "/etc/profile"
        || t.starts_with("/etc/profile.d/")
        || t == "/etc/bash.bashrc"
        || t == "/etc/zshrc"
        || t == "/etc/zsh/zshrc"
        || t == "/etc/environment"
        || t == "/etc/ld.so.preload"
}

/// What in a startup file runs something it should not: a download, a network shell, a
/// decoded payload, a trap on every prompt, a hijacked `sudo`.
fn payload(content: &str) -> bool {
    let c = content.to_ascii_lowercase();
    [
        "curl ",
        "wget ",
        "nc ",
        "ncat ",
        "/dev/tcp/",
        "base64 -d",
        "base64 --decode",
        "python -c",
        "python3 -c",
        "ld_preload",
        "prompt_command",
        "alias sudo",
        "alias ssh",
        "alias git=",
        "trap ",
    ]
    .iter()
    .any(|p| c.contains(p))
}

/// The agent's standing instructions and settings: a skill that rewrites them persists past
/// its session and can grant itself permissions.
fn agent_file(t: &str) -> bool {
    let name = t.rsplit('/').next().unwrap_or(t);
    matches!(
        name,
        "CLAUDE.md"
            | "AGENTS.md"
            | "GEMINI.md"
            | "QWEN.md"
            | ".cursorrules"
            | "copilot-instructions.md"
            | ".mcp.json"
    ) || t.contains(".claude/settings")
        || t == "~/.claude/CLAUDE.md"
        || t.contains(".cursor/rules")
        || t.contains(".codex/config")
        || t.contains(".gemini/settings")
        || t.contains(".qwen/settings")
        || t.contains(".git/hooks/")
}

/// The variable of a name looked up as a label under a fixed domain (`"$KEY".evil.example`,
/// `${CHUNK}.t.example`) whose name says it carries data (a key, a token, a chunk of an
/// encoded payload), though it is none of the secret names [`secrets::secret_name`] knows:
/// in a DNS query the label itself is what travels, to whoever serves the domain.
fn dns_payload_label(host: &str) -> Option<&str> {
    const WORDS: &[&str] = &[
        "KEY", "KEYS", "TOKEN", "SECRET", "PASS", "PASSWORD", "PWD", "CRED", "CREDS", "AUTH",
        "DATA", "PAYLOAD", "CHUNK", "PART", "B64", "HEX", "ENC", "ENCODED", "LOOT", "DUMP",
    ];
    let start = host.find("${")?;
    let end = start + host[start..].find('}')?;
    let name = &host[start + 2..end];
    // A fixed domain after it, not a variable host (`$HOST`) or a suffix (`_dmarc.$DOMAIN`).
    let rest = &host[end + 1..];
    let domain = rest.strip_prefix('.')?;
    if domain.contains('$') || !domain.contains('.') {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    upper
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| {
            WORDS.contains(&w)
                || w.strip_suffix(|c: char| c.is_ascii_digit())
                    .is_some_and(|w| WORDS.contains(&w))
        })
        .then_some(name)
}
