//! Two censuses of the same networks compared network by network: how a
//! change to a receiver moved each category, and whether the move is more
//! than chance.
//!
//! Pass rates of two builds measured on the same draw are paired
//! observations: every network is run by both. The flips are what a
//! change did: networks that now pass (+) and networks that now fail (-).
//! Many simulated networks are chaotic (a CUBIC sender's losses, a shared
//! queue's winner, a Mahimahi trace's slow phase): a change of a few bytes
//! in one window moves their outcome either way, so a category can show
//! tens of flips each way and no net effect. McNemar's exact test (the
//! sign test on the discordant pairs) says how likely a split at least as
//! uneven as the one seen would be if the change did nothing: two-sided
//! p = min(1, 2 P(X <= min(+, -))) with X ~ Binomial(+ + -, 1/2)
//! (McNemar, Psychometrika 1947, in its exact binomial form).
//!
//! Both directories must hold the same draw judged the same way:
//! `census.toml` agrees on the format, the seed, the categories, the traces
//! and the baseline. Receivers are matched
//! by their specification (`rtac`, `rtac:k=3e-7`); a receiver present in
//! only one is left out.

use crate::{Category, CensusError};
use rtac_sweep::out::records;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The largest `networks.csv` read (1 GiB, about 10^7 rows): a larger file
/// is refused rather than read into memory.
const MAX_ROWS_BYTES: u64 = 1 << 30;

/// The lines of `census.toml` two compared censuses must share, each with
/// what differs if they do not: the first four fix which networks are
/// drawn, the baseline is what every verdict is judged against.
const SAME_KEYS: [(&str, &str); 5] = [
    ("format", "drew different networks"),
    ("seed", "drew different networks"),
    ("categories", "drew different networks"),
    ("traces", "drew different networks"),
    ("baseline", "judged their receivers against different baselines"),
];

/// One receiver's verdict on one network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub category: Category,
    pub pass: bool,
    pub catastrophic: bool,
}

/// A census directory read back: per receiver, per network index.
#[derive(Debug)]
pub struct Census {
    pub dir: PathBuf,
    draw: BTreeMap<&'static str, String>,
    pub receivers: BTreeMap<String, BTreeMap<u64, Outcome>>,
}

fn err(path: &Path, message: impl Into<String>) -> CensusError {
    CensusError::Output { path: path.to_path_buf(), message: message.into() }
}

impl Census {
    /// Reads `dir/census.toml` and `dir/networks.csv`.
    pub fn read(dir: &Path) -> Result<Census, CensusError> {
        let id_path = dir.join("census.toml");
        let id = std::fs::read_to_string(&id_path).map_err(|e| err(&id_path, format!("cannot read: {e}")))?;
        let mut draw = BTreeMap::new();
        for line in id.lines().filter(|l| !l.starts_with('#')) {
            if let Some((key, value)) = line.split_once(" = ") {
                if let Some((k, _)) = SAME_KEYS.iter().find(|(k, _)| *k == key.trim()) {
                    draw.insert(*k, value.trim().to_string());
                }
            }
        }
        if let Some((missing, _)) = SAME_KEYS.iter().find(|(k, _)| !draw.contains_key(k)) {
            return Err(err(&id_path, format!("no `{missing}` line: not a census directory's census.toml")));
        }
        let rows_path = dir.join("networks.csv");
        let size = std::fs::metadata(&rows_path).map_err(|e| err(&rows_path, format!("cannot read: {e}")))?.len();
        if size > MAX_ROWS_BYTES {
            return Err(err(&rows_path, format!("{size} bytes, more than the {MAX_ROWS_BYTES} this reads")));
        }
        let text = std::fs::read_to_string(&rows_path).map_err(|e| err(&rows_path, format!("cannot read: {e}")))?;
        let receivers = parse_rows(&rows_path, &text)?;
        Ok(Census { dir: dir.to_path_buf(), draw, receivers })
    }
}

/// The verdict rows of `networks.csv` (the baseline's rows have none).
fn parse_rows(path: &Path, text: &str) -> Result<BTreeMap<String, BTreeMap<u64, Outcome>>, CensusError> {
    let (recs, _) = records(text);
    let mut recs = recs.into_iter();
    let Some((_, header)) = recs.next() else {
        return Err(err(path, "empty: no header"));
    };
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| err(path, format!("line 1: no `{name}` column")))
    };
    let (ci, cc, cr, cp, ck) = (col("index")?, col("category")?, col("receiver")?, col("pass")?, col("catastrophic")?);
    let mut out: BTreeMap<String, BTreeMap<u64, Outcome>> = BTreeMap::new();
    for (line, rec) in recs {
        if rec.len() != header.len() {
            return Err(err(path, format!("line {line}: {} fields where the header has {}", rec.len(), header.len())));
        }
        if rec[cp].is_empty() {
            continue; // the baseline's row
        }
        let bad = |c: usize| err(path, format!("line {line}: `{}` is {:?}", header[c], rec[c]));
        let index: u64 = rec[ci].parse().map_err(|_| bad(ci))?;
        let category: Category = rec[cc].parse().map_err(|_| bad(cc))?;
        let flag = |c: usize| match rec[c].as_str() {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(bad(c)),
        };
        let outcome = Outcome { category, pass: flag(cp)?, catastrophic: flag(ck)? };
        out.entry(rec[cr].clone()).or_default().insert(index, outcome);
    }
    Ok(out)
}

/// The paired counts of one receiver in one category (or all).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paired {
    /// Networks both censuses ran.
    pub n: usize,
    pub before: usize,
    pub after: usize,
    /// Networks that now pass, and that now fail.
    pub gained: usize,
    pub lost: usize,
    /// Catastrophic single-flow cases before and after.
    pub cat_before: usize,
    pub cat_after: usize,
}

impl Paired {
    fn add(&mut self, a: Outcome, b: Outcome) {
        self.n += 1;
        self.before += usize::from(a.pass);
        self.after += usize::from(b.pass);
        self.gained += usize::from(!a.pass && b.pass);
        self.lost += usize::from(a.pass && !b.pass);
        self.cat_before += usize::from(a.catastrophic);
        self.cat_after += usize::from(b.catastrophic);
    }

    /// McNemar's exact two-sided p for the flips (module docs).
    pub fn p_value(&self) -> f64 {
        sign_test(self.gained, self.lost)
    }
}

/// Two-sided exact sign test: the probability, under Binomial(a + b, 1/2),
/// of a split at least as uneven as (a, b). Summed in log space, so it
/// holds for any count a census can have.
pub fn sign_test(a: usize, b: usize) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    let k = a.min(b);
    // log C(n, i) 2^-n for i = 0..=k, from log C(n, 0) = 0.
    let mut log_term = -(n as f64) * std::f64::consts::LN_2;
    let mut terms = vec![log_term];
    for i in 1..=k {
        log_term += ((n - i + 1) as f64 / i as f64).ln();
        terms.push(log_term);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum = top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln();
    (2.0 * sum.exp()).min(1.0)
}

/// One receiver's verdicts in two censuses, paired on the networks both
/// ran: per category in `Category::ALL` order, then all categories.
pub fn pair(before: &BTreeMap<u64, Outcome>, after: &BTreeMap<u64, Outcome>) -> Vec<(Option<Category>, Paired)> {
    let mut by_cat: BTreeMap<Category, Paired> = BTreeMap::new();
    let mut all = Paired::default();
    for (index, a) in before {
        let Some(b) = after.get(index) else { continue };
        by_cat.entry(a.category).or_default().add(*a, *b);
        all.add(*a, *b);
    }
    let mut out: Vec<(Option<Category>, Paired)> = by_cat.into_iter().map(|(c, p)| (Some(c), p)).collect();
    out.push((None, all));
    out
}

/// Compares two census directories of the same draw: a report per
/// receiver that both measured.
pub fn compare(before: &Census, after: &Census) -> Result<String, CensusError> {
    for (key, differs) in SAME_KEYS {
        if before.draw[key] != after.draw[key] {
            return Err(err(
                &after.dir.join("census.toml"),
                format!(
                    "`{key}` is {} where {} has {}: the two censuses {differs}",
                    after.draw[key],
                    before.dir.join("census.toml").display(),
                    before.draw[key]
                ),
            ));
        }
    }
    let common: Vec<&String> = before.receivers.keys().filter(|r| after.receivers.contains_key(*r)).collect();
    if common.is_empty() {
        return Err(err(&after.dir, "no receiver measured in both censuses (receivers match by their specification)"));
    }
    let pct = |k: usize, n: usize| if n == 0 { 0.0 } else { 100.0 * k as f64 / n as f64 };
    let mut t = String::new();
    let _ = writeln!(t, "{} -> {}, network by network", before.dir.display(), after.dir.display());
    let _ = writeln!(
        t,
        "+: networks that now pass, -: that now fail; p: McNemar's exact test that the change did nothing;\ncatastrophic: single-flow cases (criteria in docs/CENSUS.md)"
    );
    for rx in common {
        let _ = writeln!(t, "\nreceiver {rx}");
        let _ = writeln!(
            t,
            "{:<8} {:>6} {:>7} {:>7} {:>5} {:>5} {:>7}  catastrophic",
            "category", "n", "before", "after", "+", "-", "p"
        );
        for (cat, p) in pair(&before.receivers[rx], &after.receivers[rx]) {
            let _ = writeln!(
                t,
                "{:<8} {:>6} {:>6.1}% {:>6.1}% {:>5} {:>5} {:>7.3}  {} -> {}",
                cat.map_or("all", |c| c.name()),
                p.n,
                pct(p.before, p.n),
                pct(p.after, p.n),
                p.gained,
                p.lost,
                p.p_value(),
                p.cat_before,
                p.cat_after
            );
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.max(1e-300)
    }

    #[test]
    fn the_sign_test_matches_the_binomial_by_hand() {
        // (0, 5): 2 * 2^-5.
        assert!(close(sign_test(0, 5), 2.0 / 32.0));
        // (1, 9): 2 * (1 + 10) / 1024.
        assert!(close(sign_test(1, 9), 22.0 / 1024.0));
        // Symmetric, and an even split is no evidence at all.
        assert_eq!(sign_test(9, 1), sign_test(1, 9));
        assert_eq!(sign_test(30, 30), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
    }

    #[test]
    fn the_sign_test_holds_where_two_to_the_n_underflows() {
        // 2^-2000 underflows f64; the sum in log space does not.
        let p = sign_test(900, 1100);
        assert!(p > 0.0 && p < 1e-5, "p {p}");
        assert!(sign_test(1000, 1000) > 0.98);
    }

    fn outcome(category: Category, pass: bool, catastrophic: bool) -> Outcome {
        Outcome { category, pass, catastrophic }
    }

    #[test]
    fn pairs_count_flips_only_on_networks_both_ran() {
        let (f, j) = (Category::Fixed, Category::Jitter);
        let before: BTreeMap<u64, Outcome> = [
            (0, outcome(f, true, false)),
            (1, outcome(f, false, true)),
            (2, outcome(j, true, false)),
            (3, outcome(j, false, false)),
        ]
        .into();
        let after: BTreeMap<u64, Outcome> =
            [(0, outcome(f, false, false)), (1, outcome(f, true, false)), (2, outcome(j, true, false))].into();
        let rows = pair(&before, &after);
        let get = |c: Option<Category>| rows.iter().find(|(k, _)| *k == c).unwrap().1;
        let fixed = get(Some(f));
        assert_eq!((fixed.n, fixed.before, fixed.after, fixed.gained, fixed.lost), (2, 1, 1, 1, 1));
        assert_eq!((fixed.cat_before, fixed.cat_after), (1, 0));
        // Network 3 ran only before: left out.
        let all = get(None);
        assert_eq!((all.n, all.gained, all.lost), (3, 1, 1));
    }

    #[test]
    fn a_bad_row_is_named_by_its_line() {
        let path = Path::new("x/networks.csv");
        let head = format!("{}\n", crate::out::HEADER);
        let ok = format!("{head}0,fixed,autotuning,1,1,,,,,,,0.1,\"n\"\n0,fixed,rtac,1,1,,,1,0,1,1,0.1,\"n\"\n");
        let rows = parse_rows(path, &ok).unwrap();
        assert_eq!(rows["rtac"][&0], outcome(Category::Fixed, true, false));
        assert!(!rows.contains_key("autotuning"), "the baseline has no verdict");
        let bad = format!("{head}0,fixed,rtac,1,1,,,yes,0,1,1,0.1,\"n\"\n");
        let e = parse_rows(path, &bad).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("`pass`"), "{e}");
        let short = format!("{head}0,fixed,rtac\n");
        let e = parse_rows(path, &short).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("3 fields"), "{e}");
        let e = parse_rows(path, "index,receiver\n").unwrap_err().to_string();
        assert!(e.contains("no `category` column"), "{e}");
    }
}
