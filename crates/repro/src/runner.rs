//! Runs every job of every selected study in one pool of threads.

use crate::{Job, Results, Study};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How to show progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Bar,
    Hidden,
}

/// Runs the jobs of `studies` on `threads` threads; returns each study's
/// results in the same order. Results do not depend on `threads`.
pub fn run_jobs(studies: &[Study], quick: bool, threads: usize, progress: Progress) -> Vec<Results> {
    let jobs: Vec<(usize, Job)> =
        studies.iter().enumerate().flat_map(|(i, s)| (s.jobs)(quick).into_iter().map(move |j| (i, j))).collect();
    let bar = match progress {
        Progress::Bar => ProgressBar::new(jobs.len() as u64),
        Progress::Hidden => ProgressBar::hidden(),
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} runs {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    // Longest first: big sweeps start early and the tail stays short.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&jobs[i].1)));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Results>> = Mutex::new(studies.iter().map(|_| Results::default()).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(n) else { break };
                let (study, job) = &jobs[i];
                let opts = rtac_sim::RunOptions { series: job.series };
                let r = rtac_sim::run(&job.scenario, &job.choice, &opts);
                bar.set_message(format!("{}: {}", studies[*study].id, job.key));
                bar.inc(1);
                out.lock()
                    .expect("no runner panicked")
                    .get_mut(*study)
                    .expect("study index")
                    .runs
                    .insert(job.key.clone(), r);
            });
        }
    });
    bar.finish_and_clear();
    out.into_inner().expect("no runner panicked")
}

/// A rough cost estimate: simulated seconds times bottleneck rate.
fn cost(j: &Job) -> u64 {
    let rate = j.scenario.links.iter().map(|l| l.rate.bps()).min().unwrap_or(0);
    j.scenario.duration.as_millis()
        * (rate / 1_000_000).max(1)
        * j.scenario.flows.iter().map(|f| f.count as u64).sum::<u64>().max(1)
}
