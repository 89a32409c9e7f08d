//! "Did you mean": the known names closest to a mistyped one, by edit distance over
//! characters (a transposition counts once), close enough to be a typo, not a guess.

/// The names of `known` within a typo of `typed`, closest first (at most three).
pub fn nearest<'k>(typed: &str, known: &'k [String]) -> Vec<&'k str> {
    let typed_l = typed.to_lowercase();
    let limit = (typed.chars().count() / 3).clamp(1, 3);
    let mut close: Vec<(usize, &str)> = known
        .iter()
        .filter_map(|k| {
            let d = distance(&typed_l, &k.to_lowercase());
            (d <= limit).then_some((d, k.as_str()))
        })
        .collect();
    close.sort();
    close.into_iter().take(3).map(|(_, k)| k).collect()
}

/// Optimal string alignment distance, on characters; long inputs are not compared.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().max(b.len()) > 128 {
        return usize::MAX;
    }
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_found_and_guesses_are_not() {
        let known: Vec<String> = ["pdf", "pdf-tools", "deploy", "review-pr", "漢字-skill"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(nearest("pfd", &known), ["pdf"]);
        assert_eq!(nearest("deplyo", &known), ["deploy"]);
        assert_eq!(nearest("Review-PR", &known), ["review-pr"]);
        assert_eq!(nearest("pdf-tool", &known), ["pdf-tools"]);
        assert_eq!(nearest("漢子-skill", &known), ["漢字-skill"]);
        assert!(nearest("optimizer", &known).is_empty());
        assert!(nearest(&"x".repeat(10_000), &known).is_empty());
    }
}
