//! Crypto mining: using the user's machine to mine for someone else.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "MIN001",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Runs, downloads or embeds a cryptocurrency miner",
        explanation: "Detects a miner program (XMRig, xmr-stak, cpuminer, cgminer, ethminer, lolMiner, NBMiner, GMiner, SRBMiner and others) started with options, a miner release archive being downloaded, a miner installed from a package manager, and in-browser CoinHive loaders. A skill that runs a miner burns the user's CPU, power and cloud bill for someone else. Names merely mentioned in prose are not reported. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?im)(?:^|[\s;&|/"'(=])(?:xmrig(?:-cuda|-opencl|-proxy)?|xmr-stak(?:-rx)?|cpuminer(?:-multi|-opt)?|minerd|cgminer|bfgminer|ethminer|nbminer|lolminer|phoenixminer|nanominer|teamredminer|srbminer(?:-multi)?|gminer|ccminer)(?:\.exe)?[ \t]+-{1,2}[a-z]|(?-u:\b)(?:xmrig|xmr-stak|cpuminer-opt|cpuminer-multi|lolminer|srbminer-multi|nbminer|teamredminer|ethminer)-v?\d+\.\d+[\w.-]*\.(?:tar\.gz|tgz|zip|tar\.xz|7z)(?-u:\b)|(?-u:\b)coinhive\.com/lib/|<script[^>\n]*?coinhive[^>\n]*?\.js|(?-u:\b)CoinHive\.(?:Anonymous|User|Token)[ \t]*\(|(?-u:\b)(?:apt(?:-get)?|brew|yum|dnf)[ \t]+install[ \t]+(?:-\S+[ \t]+)*(?:xmrig|cpuminer|cgminer|ethminer)(?-u:\b)"#,
        ),
        fires: &[
            "xmrig --url stratum+tcp://pool:3333",
            "./cpuminer-opt -a yescrypt -o pool -u wallet",
            "wget https://github.com/xmrig/xmrig/releases/download/v6.21.0/xmrig-6.21.0-linux-static-x64.tar.gz",
            "<script src=\"https://coinhive.com/lib/coinhive.min.js\"></script>",
        ],
        passes: &[
            "Data mining with pandas",
            "XMRig is a Monero miner that attackers often drop on servers.",
            "rule CoinHive_Miner { strings: $a = \"coinhive\" condition: $a }",
            "Minecraft server setup",
            "$miner2 = \"coinhive.min.js\" ascii",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "MIN002",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Mining pool stratum URL",
        explanation: "Detects `stratum+tcp://`, `stratum+ssl://` and related URLs, the protocol miners use to talk to a pool. Its presence means the skill connects a miner to a pool. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(r#"(?i)(?-u:\b)stratum\d?\+(?:tcp|ssl|tls|ws)://"#),
        fires: &[
            "xmrig --url stratum+tcp://pool:3333",
            "\"url\": \"stratum+ssl://gulf.moneroocean.stream:20128\"",
        ],
        passes: &[
            "The stratum layer of the platform",
            "https://stratum.example.com/docs",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "MIN003",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Known mining pool domain",
        explanation: "Detects domains of public mining pools (supportxmr, nanopool, 2miners, f2pool, nicehash, moneroocean, hashvault, unmineable, herominers, c3pool, ethermine and others). Connecting to them only makes sense for a miner. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)(?:supportxmr|minexmr|nanopool|2miners|f2pool|nicehash|moneroocean|hashvault|unmineable|herominers|c3pool|ethermine|viabtc|antpool|miningpoolhub|zergpool|prohashing)\.(?:com|org|net|pro|io|ca|stream)(?-u:\b)"#,
        ),
        fires: &[
            "-o pool.supportxmr.com:443",
            "gulf.moneroocean.stream:10128",
            "xmr-eu1.nanopool.org:14433",
        ],
        passes: &[
            "connection pool settings",
            "https://pool.ntp.org",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "MIN004",
        category: Category::CryptoMining,
        severity: Severity::High,
        message: "Miner configuration option",
        explanation: "Detects options that only miners take: `--donate-level`, `--cpu-max-threads-hint`, `--randomx-*`, a mining algorithm such as `rx/0`, `cryptonight`, `kawpow` or `ethash` given with `-a`/`--algo`, and `donate-level` in a JSON config. They identify a miner even when its binary is renamed. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?i)--donate-level(?-u:\b)|--cpu-max-threads-hint(?-u:\b)|--randomx-[\w-]+|[ \t]-a[ \t]+(?:rx/0|rx/wow|cn/r|cryptonight|randomx|kawpow|ethash|autolykos2?)(?-u:\b)|["']donate-level["'][ \t]*:|--(?:coin|algo)[ \t]*[= ][ \t]*(?:monero|xmr|rx/0|randomx|kawpow|ethash)(?-u:\b)"#,
        ),
        fires: &[
            "./svc --donate-level 1 -o 203.0.113.5:443 -u 4Awallet",
            "./helper -a rx/0 -o pool:443",
            "\"donate-level\": 0,",
        ],
        passes: &[
            "ls -a /tmp",
            "--level debug",
        ],
        ..Rule::PLAIN
    },
];
