//! The report: Markdown and self-contained HTML, one section per study with
//! its claims (paper vs measured, holds or not, why) and plots; and the
//! claims as JSON.

use crate::{Analysis, Claim, StudyError, Verdict};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::Path;

/// One study's outcome.
pub struct StudyReport {
    pub id: &'static str,
    pub source: &'static str,
    pub title: &'static str,
    pub runs: usize,
    pub outcome: Result<Analysis, StudyError>,
}

pub struct Report {
    pub studies: Vec<StudyReport>,
    pub quick: bool,
    /// The seeds every job ran with.
    pub seeds: Vec<u64>,
    pub wall_s: f64,
}

impl Report {
    pub fn claims(&self) -> impl Iterator<Item = &Claim> {
        self.studies.iter().filter_map(|s| s.outcome.as_ref().ok()).flat_map(|a| a.claims.iter())
    }

    /// `{"claims": [{"id", "source", "paper", "measured": {...}, "seeds",
    /// "ci95": {key: [lo, hi]}, "checks", "verdict", "holds", "why"}]}`,
    /// plus any study that failed to run.
    pub fn json(&self) -> Value {
        let claims: Vec<Value> = self
            .claims()
            .map(|c| {
                let measured: Map<String, Value> =
                    c.measured.iter().map(|(k, v)| (k.clone(), json!(round(*v)))).collect();
                let ci95: Map<String, Value> =
                    c.ci95.iter().map(|(k, [lo, hi])| (k.clone(), json!([round(*lo), round(*hi)]))).collect();
                let checks: Vec<String> = c.checks.iter().map(|ch| ch.text()).collect();
                json!({
                    "id": c.id, "source": c.source, "paper": c.paper, "measured": measured, "seeds": c.seeds,
                    "ci95": ci95, "checks": checks, "verdict": c.verdict.text(), "holds": c.holds(), "why": c.why
                })
            })
            .collect();
        let errors: Vec<Value> = self
            .studies
            .iter()
            .filter_map(|s| s.outcome.as_ref().err().map(|e| json!({"study": s.id, "error": e.0})))
            .collect();
        json!({"claims": claims, "errors": errors, "quick": self.quick, "seeds": self.seeds, "wall_s": round(self.wall_s)})
    }
}

fn round(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1000.0).round() / 1000.0
    } else {
        x
    }
}

fn mark(v: Verdict) -> &'static str {
    v.text()
}

fn css(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "ok",
        Verdict::DoesNotHold => "no",
        Verdict::Inconclusive => "maybe",
    }
}

/// `key = mean [lo, hi]` for each measured figure.
fn measured_text(c: &Claim) -> String {
    c.measured
        .iter()
        .map(|(k, v)| match c.ci95.iter().find(|(ck, _)| ck == k) {
            Some((_, [lo, hi])) if lo != hi => format!("{k} = {} [{}, {}]", short(*v), short(*lo), short(*hi)),
            _ => format!("{k} = {}", short(*v)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn checks_text(c: &Claim) -> String {
    c.checks.iter().map(|ch| ch.text()).collect::<Vec<_>>().join(" and ")
}

/// Counts of claims by verdict: (holds, inconclusive, does not hold).
fn tally(r: &Report) -> (usize, usize, usize) {
    let n = |v| r.claims().filter(|c| c.verdict == v).count();
    (n(Verdict::Holds), n(Verdict::Inconclusive), n(Verdict::DoesNotHold))
}

fn header(r: &Report) -> String {
    let (held, unsure, failed) = tally(r);
    format!(
        "{} studies, {} claims checked: {held} hold, {unsure} inconclusive, {failed} do not hold. Mode: {}. Seeds: {} \
         ({}). Wall time {:.0} s. Measured figures are means over the seeds with 95 % confidence intervals (Student \
         t) in brackets; a claim holds when every checked interval lies on the paper's side of its threshold, does \
         not hold when one lies wholly on the other side, and is inconclusive otherwise. Explanations quote the \
         first seed's figures.",
        r.studies.len(),
        r.claims().count(),
        if r.quick { "quick (shorter runs, fewer points)" } else { "full" },
        r.seeds.len(),
        r.seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
        r.wall_s
    )
}

fn short(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Writes `report.md`, `report.html` and `claims.json` into `dir`; plots
/// are referenced relative to `dir`.
pub fn write_report(report: &Report, dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join("report.md"), markdown(report, dir))?;
    std::fs::write(dir.join("report.html"), html(report, dir))?;
    let mut j = serde_json::to_string_pretty(&report.json()).expect("JSON values serialise");
    j.push('\n');
    std::fs::write(dir.join("claims.json"), j)
}

fn rel(p: &Path, dir: &Path) -> String {
    p.strip_prefix(dir).unwrap_or(p).display().to_string()
}

fn markdown(r: &Report, dir: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# rtac: the source papers' evaluations in simulation\n");
    let _ = writeln!(s, "{}\n", header(r));
    let _ = writeln!(s, "| study | source | claim | paper | measured | verdict |\n|---|---|---|---|---|---|");
    for st in &r.studies {
        match &st.outcome {
            Ok(a) => {
                for c in &a.claims {
                    let _ = writeln!(
                        s,
                        "| [{}](#{}) | {} | {} | {} | {} | **{}** |",
                        st.id,
                        st.id,
                        st.source,
                        c.id,
                        c.paper.replace('|', "/"),
                        measured_text(c),
                        mark(c.verdict)
                    );
                }
            }
            Err(e) => {
                let _ = writeln!(s, "| [{}](#{}) | {} | — | — | failed: {} | — |", st.id, st.id, st.source, e);
            }
        }
    }
    for st in &r.studies {
        let _ =
            writeln!(s, "\n## {}\n\n<a id=\"{}\"></a>{} — {} ({} runs)\n", st.id, st.id, st.source, st.title, st.runs);
        match &st.outcome {
            Err(e) => {
                let _ = writeln!(s, "The study failed: {e}");
            }
            Ok(a) => {
                for c in &a.claims {
                    let _ = writeln!(
                        s,
                        "- **{}** — paper: {}. Checked: {}. Measured over {} seed(s): {}. **{}**: {}",
                        c.id,
                        c.paper,
                        checks_text(c),
                        c.seeds,
                        measured_text(c),
                        mark(c.verdict),
                        c.why
                    );
                }
                if !a.table.is_empty() {
                    let _ = writeln!(s);
                    for (i, row) in a.table.iter().enumerate() {
                        let _ = writeln!(s, "| {} |", row.join(" | "));
                        if i == 0 {
                            let _ = writeln!(s, "|{}", "---|".repeat(row.len()));
                        }
                    }
                }
                if !a.notes.is_empty() {
                    let _ = writeln!(s, "\n{}", a.notes);
                }
                for p in &a.plots {
                    let _ = writeln!(
                        s,
                        "\n![{}]({}.png)",
                        p.file_name().map(|f| f.to_string_lossy()).unwrap_or_default(),
                        rel(p, dir)
                    );
                }
            }
        }
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn html(r: &Report, dir: &Path) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>rtac reproduction</title><style>\
         body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}}\
         .ok{{color:#060;font-weight:bold}}.no{{color:#a00;font-weight:bold}}.maybe{{color:#a60;font-weight:bold}}figure{{margin:1em 0}}svg{{max-width:100%;height:auto}}\
         </style></head><body><h1>rtac: the source papers' evaluations in simulation</h1>\
         <p>{}</p>",
        esc(&header(r))
    );
    s.push_str("<table><tr><th>study</th><th>claim</th><th>paper</th><th>measured</th><th>verdict</th></tr>");
    for st in &r.studies {
        if let Ok(a) = &st.outcome {
            for c in &a.claims {
                let _ = write!(
                    s,
                    "<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
                    st.id,
                    st.id,
                    esc(&c.id),
                    esc(&c.paper),
                    esc(&measured_text(c)),
                    css(c.verdict),
                    mark(c.verdict)
                );
            }
        } else {
            let _ =
                write!(s, "<tr><td><a href=\"#{}\">{}</a></td><td colspan=4 class=no>failed</td></tr>", st.id, st.id);
        }
    }
    s.push_str("</table>");
    for st in &r.studies {
        let _ = write!(
            s,
            "<h2 id=\"{}\">{}</h2><p>{} — {} ({} runs)</p>",
            st.id,
            st.id,
            esc(st.source),
            esc(st.title),
            st.runs
        );
        match &st.outcome {
            Err(e) => {
                let _ = write!(s, "<p class=no>The study failed: {}</p>", esc(&e.0));
            }
            Ok(a) => {
                s.push_str("<ul>");
                for c in &a.claims {
                    let _ = write!(
                        s,
                        "<li><b>{}</b> — paper: {}. Checked: {}. Measured over {} seed(s): {}. <span class=\"{}\">{}</span>: {}</li>",
                        esc(&c.id),
                        esc(&c.paper),
                        esc(&checks_text(c)),
                        c.seeds,
                        esc(&measured_text(c)),
                        css(c.verdict),
                        mark(c.verdict),
                        esc(&c.why)
                    );
                }
                s.push_str("</ul>");
                if !a.table.is_empty() {
                    s.push_str("<table>");
                    for (i, row) in a.table.iter().enumerate() {
                        let tag = if i == 0 { "th" } else { "td" };
                        s.push_str("<tr>");
                        for c in row {
                            let _ = write!(s, "<{tag}>{}</{tag}>", esc(c));
                        }
                        s.push_str("</tr>");
                    }
                    s.push_str("</table>");
                }
                if !a.notes.is_empty() {
                    let _ = write!(s, "<p>{}</p>", esc(&a.notes));
                }
                for p in &a.plots {
                    // Inline the SVG so the page is self-contained.
                    let svg = std::fs::read_to_string(p.with_extension("svg")).unwrap_or_default();
                    let svg = svg.trim_start_matches(|c| c != '<');
                    let svg = if svg.starts_with("<?xml") { svg.split_once("?>").map_or(svg, |x| x.1) } else { svg };
                    let _ = write!(s, "<figure>{svg}<figcaption>{}</figcaption></figure>", esc(&rel(p, dir)));
                }
            }
        }
    }
    s.push_str("</body></html>\n");
    s
}
