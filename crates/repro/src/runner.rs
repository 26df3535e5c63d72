//! Runs every job of every selected study, once per seed, in one pool of
//! threads.

use crate::{Job, SeedRuns, Study};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How to show progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Bar,
    Hidden,
}

/// Runs the jobs of `studies` for each of `seeds` on `threads` threads;
/// returns each study's runs by seed, in the order of `studies` and
/// `seeds`. Results do not depend on `threads`.
pub fn run_jobs(
    studies: &[Study],
    quick: bool,
    seeds: &[u64],
    threads: usize,
    progress: Progress,
) -> Vec<Vec<SeedRuns>> {
    let jobs: Vec<(usize, usize, Job)> = studies
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            seeds.iter().enumerate().flat_map(move |(k, &seed)| {
                (s.jobs)(quick, seed).into_iter().map(move |mut j| {
                    j.scenario.seed = seed;
                    (i, k, j)
                })
            })
        })
        .collect();
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
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&jobs[i].2)));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Vec<SeedRuns>>> =
        Mutex::new(studies.iter().map(|_| seeds.iter().map(|_| SeedRuns::new()).collect()).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(n) else { break };
                let (study, seed, job) = &jobs[i];
                let opts = rtac_sim::RunOptions { series: job.series };
                let r = rtac_sim::run(&job.scenario, &job.choice, &opts);
                bar.set_message(format!("{}: {}", studies[*study].id, job.key));
                bar.inc(1);
                out.lock()
                    .expect("no runner panicked")
                    .get_mut(*study)
                    .and_then(|s| s.get_mut(*seed))
                    .expect("study and seed index")
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
