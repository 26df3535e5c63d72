//! Live sockets grouped by the access link they use, one window budget
//! (`rtac_core::controller::LinkBudget`) per group.
//!
//! A socket's group is the egress interface of the kernel's route to its
//! peer ([`crate::route`], `ip route get PEER`), in the socket's network
//! namespace: the connections of a receiver that leave through one
//! interface cross one access queue (the module doc of `link_budget.rs`
//! says why they then share one RTAC state). Peers on this host (loopback,
//! or an address of this host) form the group `lo`. A peer whose route
//! cannot be read, or a socket without a peer address, is a group of its
//! own: it runs its own controller, as if there were no grouping.
//!
//! Routes are cached per (namespace, peer address), at most
//! [`CACHE_ENTRIES`] of them, for [`ROUTE_TTL`] ([`FAILURE_TTL`] after a
//! failure), so that a new connection to a known peer costs no query.
//! Groups are kept while they have connections; a group that empties is
//! forgotten at the next join (a budget that empties starts afresh anyway).
//!
//! Only controllers with a per-link form share: `rtac` unless its
//! parameters say `budget=connection`. Any other controller, or that
//! parameter, gives every connection its own controller and asks no route.

use crate::config::AgentConfig;
use crate::error::AgentError;
use crate::route::{self, RouteError};
use rtac_core::controller::{AnyController, BudgetState, ControllerKind, LinkBudget, Params};
use rtac_core::time::{Duration, Instant};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The most peers whose route is cached.
pub const CACHE_ENTRIES: usize = 4096;
/// How long a route is used before it is asked again (routes change: a
/// VPN comes up, a Wi-Fi link replaces a wired one).
pub const ROUTE_TTL: Duration = Duration::from_secs(30);
/// How long a failed lookup stands before it is tried again.
pub const FAILURE_TTL: Duration = Duration::from_secs(5);
/// The most connections in one budget. The budget's work per event grows
/// with its connections (its split of the rate visits each), so beyond
/// this a new connection runs its own controller, as one whose route is
/// unknown does.
pub const MAX_MEMBERS: usize = 256;
/// The most group labels remembered for the closing summary.
pub const HISTORY_LABELS: usize = 256;

/// The label of the group of peers on this host.
pub const LOOPBACK: &str = "lo";
/// The label of a socket that is a group of its own (no route, no peer).
pub const OWN: &str = "own";

/// Where the kernel sends to peers: the route lookup, injectable for tests.
pub trait Resolve: Send {
    /// The egress interface towards `peer` in the network namespace whose
    /// inode number is `netns` (0: the caller's own): `None` for an
    /// address of this host, else (index, name).
    fn resolve(&mut self, netns: u32, peer: IpAddr) -> Result<Option<(u32, String)>, RouteError>;
}

/// The kernel's routes (rtnetlink). Sockets of another network namespace
/// than this process's (the daemon's cgroup may hold containers) are
/// looked up inside theirs, entered through `/proc/PID/ns/net` of a process
/// of `cgroup` (or its descendants) that lives there.
pub struct KernelRoutes {
    own_netns: u32,
    cgroup: Option<PathBuf>,
    /// A process last found in each namespace.
    pids: HashMap<u32, u32>,
}

/// The most cgroup directories and processes looked at to find a process
/// in a namespace.
const SCAN_DIRS: usize = 4096;
const SCAN_PIDS: usize = 65_536;
const NETNS_PIDS: usize = 1024;

/// The inode number of this process's network namespace (0 if unknown).
pub fn own_netns() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self/ns/net").map_or(0, |m| m.ino() as u32)
}

impl KernelRoutes {
    /// Routes of this process's namespace, and of the namespaces of the
    /// processes of `cgroup`.
    pub fn new(cgroup: Option<PathBuf>) -> KernelRoutes {
        KernelRoutes { own_netns: own_netns(), cgroup, pids: HashMap::new() }
    }

    /// `/proc/PID/ns/net` of `pid` if it is namespace `netns` (checked on
    /// the open file: a pid reused meanwhile is not taken).
    fn open_ns(pid: u32, netns: u32) -> Option<std::fs::File> {
        use std::os::unix::fs::MetadataExt;
        let f = std::fs::File::open(format!("/proc/{pid}/ns/net")).ok()?;
        (f.metadata().ok()?.ino() as u32 == netns).then_some(f)
    }

    /// A process of the cgroup tree in namespace `netns`.
    fn find(&self, netns: u32) -> Option<(u32, std::fs::File)> {
        let mut dirs = vec![self.cgroup.clone()?];
        let (mut seen_dirs, mut seen_pids) = (0, 0);
        while let Some(dir) = dirs.pop() {
            seen_dirs += 1;
            if seen_dirs > SCAN_DIRS || seen_pids > SCAN_PIDS {
                return None;
            }
            if let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) {
                for pid in procs.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
                    seen_pids += 1;
                    if let Some(f) = Self::open_ns(pid, netns) {
                        return Some((pid, f));
                    }
                }
            }
            if let Ok(entries) = std::fs::read_dir(&dir) {
                dirs.extend(entries.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()));
            }
        }
        None
    }
}

impl Resolve for KernelRoutes {
    fn resolve(&mut self, netns: u32, peer: IpAddr) -> Result<Option<(u32, String)>, RouteError> {
        if netns == 0 || netns == self.own_netns {
            return route::query(peer);
        }
        let known = self.pids.get(&netns).and_then(|&pid| Self::open_ns(pid, netns));
        let file = match known {
            Some(f) => f,
            None => {
                let (pid, f) = self.find(netns).ok_or(RouteError::NoNamespace(netns))?;
                if self.pids.len() >= NETNS_PIDS {
                    self.pids.clear();
                }
                self.pids.insert(netns, pid);
                f
            }
        };
        route::query_in_netns(&file, peer)
    }
}

/// Which group a socket is in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKey {
    /// Peers reached through interface `ifindex` of namespace `netns`.
    Link { netns: u32, ifindex: u32 },
    /// Peers on this host, in namespace `netns`.
    Loopback { netns: u32 },
}

/// A cached route: the group (`None`: the lookup failed), its label, when.
type Cached = (Option<GroupKey>, Option<Arc<str>>, Instant);

/// A bounded cache of routes by (namespace, peer), oldest entry out first.
struct RouteCache {
    map: HashMap<(u32, IpAddr), Cached>,
    order: VecDeque<(u32, IpAddr)>,
}

impl RouteCache {
    fn get(&self, key: &(u32, IpAddr), now: Instant) -> Option<(Option<GroupKey>, Option<Arc<str>>)> {
        let (k, label, at) = self.map.get(key)?;
        let ttl = if k.is_some() { ROUTE_TTL } else { FAILURE_TTL };
        (now.saturating_since(*at) < ttl).then(|| (k.clone(), label.clone()))
    }

    fn put(&mut self, key: (u32, IpAddr), value: Option<GroupKey>, label: Option<Arc<str>>, now: Instant) {
        if !self.map.contains_key(&key) {
            while self.map.len() >= CACHE_ENTRIES {
                match self.order.pop_front() {
                    Some(old) => self.map.remove(&old),
                    None => break,
                };
            }
            self.order.push_back(key);
        }
        self.map.insert(key, (value, label, now));
    }
}

/// One group: its label and budget.
struct Entry {
    label: Arc<str>,
    budget: LinkBudget,
}

/// What a group has held since the start, for the closing summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupHistory {
    /// Connections that joined it.
    pub joined: u64,
    /// The most connections in it at once.
    pub peak: usize,
}

/// A group as the status table shows it.
pub struct GroupView<'a> {
    pub label: &'a str,
    pub state: BudgetState,
}

/// The controller a new connection gets, and what it belongs to.
pub struct Joined {
    pub controller: AnyController,
    /// The group's label when it shares a budget (`None`: its own controller).
    pub group: Option<Arc<str>>,
    /// How to build its own controller should the budget fail it.
    pub fallback: Option<Arc<OwnController>>,
}

/// The configuration of a connection's own controller.
#[derive(Debug)]
pub struct OwnController {
    pub kind: ControllerKind,
    pub params: Params,
}

impl OwnController {
    pub fn build(&self, mss: u32) -> Result<AnyController, AgentError> {
        Ok(AnyController::new(self.kind, mss, &self.params)?)
    }
}

/// Sockets grouped by access link, one budget per group, for one
/// controller configuration.
pub struct Grouping {
    own: Arc<OwnController>,
    /// This process's network namespace: its groups are labelled by the
    /// interface alone, those of other namespaces with `@ns<inode>`.
    own_netns: u32,
    per_link: bool,
    resolver: Box<dyn Resolve>,
    cache: RouteCache,
    groups: BTreeMap<GroupKey, Entry>,
    history: BTreeMap<Arc<str>, GroupHistory>,
}

impl Grouping {
    /// Groups for `cfg`, looking routes up with `resolver`.
    pub fn new(cfg: &AgentConfig, resolver: Box<dyn Resolve>) -> Grouping {
        let per_link = matches!(LinkBudget::for_choice(cfg.kind, rtac_core::DEFAULT_MSS, &cfg.params), Ok(Some(_)));
        Grouping {
            own: Arc::new(OwnController { kind: cfg.kind, params: cfg.params.clone() }),
            own_netns: own_netns(),
            per_link,
            resolver,
            cache: RouteCache { map: HashMap::new(), order: VecDeque::new() },
            groups: BTreeMap::new(),
            history: BTreeMap::new(),
        }
    }

    /// Whether connections share budgets (else each has its own controller).
    pub fn per_link(&self) -> bool {
        self.per_link
    }

    /// The group of a connection to `peer` in namespace `netns` (0: this
    /// process's), and its label; `None`: a group of its own.
    fn group_of(&mut self, now: Instant, netns: u32, peer: IpAddr) -> Option<(GroupKey, Arc<str>)> {
        let peer = route::unmapped(peer);
        let netns = if netns == self.own_netns { 0 } else { netns };
        if peer.is_loopback() {
            return Some((GroupKey::Loopback { netns }, Arc::from(LOOPBACK)));
        }
        let key = (netns, peer);
        let (k, label) = match self.cache.get(&key, now) {
            Some(hit) => hit,
            None => {
                let (k, label) = match self.resolver.resolve(netns, peer) {
                    Ok(None) => (Some(GroupKey::Loopback { netns }), Some(Arc::from(LOOPBACK))),
                    Ok(Some((ifindex, name))) => {
                        let label = if netns == 0 { name } else { format!("{name}@ns{netns}") };
                        (Some(GroupKey::Link { netns, ifindex }), Some(Arc::from(label.as_str())))
                    }
                    Err(_) => (None, None),
                };
                self.cache.put(key, k.clone(), label.clone(), now);
                (k, label)
            }
        };
        Some((k?, label?))
    }

    /// The controller for a new connection with segment size `mss` to
    /// `peer` (in namespace `netns`, 0: this process's): a place in its
    /// group's budget, or its own controller (a controller without a
    /// per-link form, no peer, no route).
    pub fn join(&mut self, now: Instant, netns: u32, peer: Option<IpAddr>, mss: u32) -> Result<Joined, AgentError> {
        let own = |o: &OwnController| -> Result<Joined, AgentError> {
            Ok(Joined { controller: o.build(mss)?, group: None, fallback: None })
        };
        if !self.per_link {
            return own(&self.own);
        }
        let Some((key, label)) = peer.and_then(|p| self.group_of(now, netns, p)) else { return own(&self.own) };
        self.groups.retain(|_, e| e.budget.state().connections > 0);
        let entry = match self.groups.get(&key) {
            Some(e) => e,
            None => {
                let Some(budget) = LinkBudget::for_choice(self.own.kind, mss, &self.own.params)? else {
                    return own(&self.own);
                };
                self.groups.entry(key.clone()).or_insert(Entry { label: label.clone(), budget })
            }
        };
        if entry.budget.state().connections >= MAX_MEMBERS {
            return own(&self.own);
        }
        let member = entry.budget.join();
        let connections = entry.budget.state().connections;
        if self.history.len() < HISTORY_LABELS || self.history.contains_key(&label) {
            let h = self.history.entry(label.clone()).or_default();
            h.joined += 1;
            h.peak = h.peak.max(connections);
        }
        Ok(Joined {
            controller: AnyController::Link(member),
            group: Some(entry.label.clone()),
            fallback: Some(self.own.clone()),
        })
    }

    /// The groups that have connections now, with their budgets' state.
    pub fn groups(&self) -> impl Iterator<Item = GroupView<'_>> {
        self.groups
            .values()
            .map(|e| GroupView { label: &e.label, state: e.budget.state() })
            .filter(|g| g.state.connections > 0)
    }

    /// Every group seen since the start (at most [`HISTORY_LABELS`]).
    pub fn history(&self) -> impl Iterator<Item = (&str, GroupHistory)> {
        self.history.iter().map(|(l, h)| (&**l, *h))
    }
}

/// Whether a budget's state is broken for `member`: numbers no budget can
/// hold (the member missing from it, a share or rate that is not a finite
/// fraction, no window at all). The socket then leaves the budget for its
/// own controller ([`crate::step::Stepper`]).
pub fn broken(member: &rtac_core::controller::LinkMember) -> Option<&'static str> {
    use rtac_core::controller::Controller;
    let st = member.budget().state();
    let share = member.share();
    if st.connections == 0 {
        Some("the connection is not in its budget")
    } else if !share.is_finite() || !(0.0..=1.0).contains(&share) {
        Some("its share of the budget is not a fraction")
    } else if st.rate.is_some_and(|r| !r.is_finite() || r < 0.0) {
        Some("the budget's rate is not a finite number")
    } else if !member.defers_to_kernel() && member.rwnd().is_none_or(|w| w == 0) {
        Some("the budget gives no window")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtac_core::controller::Controller;
    use std::sync::Mutex;

    /// Routes from a table; counts the lookups.
    type Route = Result<Option<(u32, String)>, RouteError>;
    struct Table(Vec<(IpAddr, Route)>, Arc<Mutex<u32>>);

    impl Resolve for Table {
        fn resolve(&mut self, _netns: u32, peer: IpAddr) -> Result<Option<(u32, String)>, RouteError> {
            *self.1.lock().unwrap() += 1;
            match self.0.iter().find(|(a, _)| *a == peer) {
                Some((_, Ok(r))) => Ok(r.clone()),
                Some((_, Err(_))) | None => Err(RouteError::Kernel(libc::ENETUNREACH)),
            }
        }
    }

    fn grouping(controller: &str) -> (Grouping, Arc<Mutex<u32>>) {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let table = vec![
            (ip("10.0.0.1"), Ok(Some((3, "veth-a".to_string())))),
            (ip("10.0.0.2"), Ok(Some((3, "veth-a".to_string())))),
            (ip("192.0.2.7"), Ok(Some((4, "wlan0".to_string())))),
            (ip("10.9.9.9"), Ok(None)),
        ];
        let n = Arc::new(Mutex::new(0));
        let cfg = AgentConfig::new(controller, &[] as &[&str]).unwrap();
        (Grouping::new(&cfg, Box::new(Table(table, n.clone()))), n)
    }

    fn join(g: &mut Grouping, ms: u64, peer: &str) -> Joined {
        g.join(Instant::from_millis(ms), 0, Some(peer.parse().unwrap()), 1448).unwrap()
    }

    #[test]
    fn sockets_through_one_interface_share_one_budget_and_others_do_not() {
        let (mut g, lookups) = grouping("rtac");
        assert!(g.per_link());
        let a = join(&mut g, 0, "10.0.0.1");
        let b = join(&mut g, 1, "10.0.0.2");
        let c = join(&mut g, 2, "192.0.2.7");
        let d = join(&mut g, 3, "127.0.0.1");
        let e = join(&mut g, 4, "::1");
        let f = join(&mut g, 5, "10.9.9.9");
        let label = |j: &Joined| j.group.as_deref().map(str::to_string);
        assert_eq!(label(&a).as_deref(), Some("veth-a"));
        assert_eq!(label(&b).as_deref(), Some("veth-a"));
        assert_eq!(label(&c).as_deref(), Some("wlan0"));
        // Loopback peers, and an address of this host, are the group lo.
        assert_eq!(
            (label(&d).as_deref(), label(&e).as_deref(), label(&f).as_deref()),
            (Some("lo"), Some("lo"), Some("lo"))
        );
        let mut states: Vec<(String, usize)> = g.groups().map(|v| (v.label.to_string(), v.state.connections)).collect();
        states.sort();
        assert_eq!(states, [("lo".into(), 3), ("veth-a".into(), 2), ("wlan0".into(), 1)]);
        match (&a.controller, &b.controller) {
            (AnyController::Link(x), AnyController::Link(y)) => {
                assert_eq!(x.budget().state(), y.budget().state());
                assert_eq!(x.budget().state().connections, 2);
            }
            _ => panic!("rtac joins a budget"),
        }
        // Loopback asks the kernel nothing; each other peer once.
        assert_eq!(*lookups.lock().unwrap(), 4);
        // A connection that ends leaves; the empty group is forgotten.
        drop(c);
        let _again = join(&mut g, 6, "10.0.0.1");
        assert!(g.groups().all(|v| v.label != "wlan0"));
        assert_eq!(g.history().find(|(l, _)| *l == "veth-a").unwrap().1, GroupHistory { joined: 3, peak: 3 });
        assert_eq!(g.history().find(|(l, _)| *l == "wlan0").unwrap().1, GroupHistory { joined: 1, peak: 1 });
    }

    #[test]
    fn a_peer_without_a_route_is_a_group_of_its_own() {
        let (mut g, lookups) = grouping("rtac");
        let a = join(&mut g, 0, "203.0.113.5");
        let b = join(&mut g, 1, "203.0.113.5");
        assert!(a.group.is_none() && b.group.is_none());
        assert!(matches!(a.controller, AnyController::Rtac(_)), "its own controller");
        assert_eq!(g.groups().count(), 0);
        // The failure is cached for FAILURE_TTL, then asked again.
        assert_eq!(*lookups.lock().unwrap(), 1);
        let _c = join(&mut g, FAILURE_TTL.as_millis() + 1, "203.0.113.5");
        assert_eq!(*lookups.lock().unwrap(), 2);
        // No peer address: its own.
        let none = g.join(Instant::ZERO, 0, None, 1448).unwrap();
        assert!(none.group.is_none());
    }

    #[test]
    fn routes_are_asked_again_after_their_ttl_and_the_cache_is_bounded() {
        let (mut g, lookups) = grouping("rtac");
        let _a = join(&mut g, 0, "10.0.0.1");
        let _b = join(&mut g, 1000, "10.0.0.1");
        assert_eq!(*lookups.lock().unwrap(), 1);
        let _c = join(&mut g, ROUTE_TTL.as_millis() + 1, "10.0.0.1");
        assert_eq!(*lookups.lock().unwrap(), 2);
        for i in 0..(CACHE_ENTRIES as u32 + 100) {
            let peer = IpAddr::from(std::net::Ipv4Addr::from(0x0a01_0000 + i));
            let _ = g.join(Instant::from_millis(5000), 0, Some(peer), 1448).unwrap();
        }
        assert!(g.cache.map.len() <= CACHE_ENTRIES && g.cache.order.len() == g.cache.map.len());
    }

    #[test]
    fn other_controllers_and_budget_connection_never_share_or_ask() {
        for ctl in ["rtac:budget=connection", "drwa", "static", "none"] {
            let (mut g, lookups) = grouping(ctl);
            assert!(!g.per_link(), "{ctl}");
            let a = join(&mut g, 0, "10.0.0.1");
            assert!(a.group.is_none() && a.fallback.is_none(), "{ctl}");
            assert!(!matches!(a.controller, AnyController::Link(_)), "{ctl}");
            assert_eq!(*lookups.lock().unwrap(), 0, "{ctl}");
        }
    }

    #[test]
    fn a_full_budget_gives_a_new_connection_its_own_controller() {
        let (mut g, _) = grouping("rtac");
        let members: Vec<Joined> = (0..MAX_MEMBERS).map(|i| join(&mut g, i as u64, "10.0.0.1")).collect();
        assert!(members.iter().all(|j| j.group.is_some()));
        let extra = join(&mut g, 1000, "10.0.0.2");
        assert!(extra.group.is_none() && matches!(extra.controller, AnyController::Rtac(_)));
        assert_eq!(g.groups().next().unwrap().state.connections, MAX_MEMBERS);
    }

    #[test]
    fn namespaces_keep_their_groups_apart() {
        let (mut g, _) = grouping("rtac");
        let a = g.join(Instant::ZERO, 0, Some("10.0.0.1".parse().unwrap()), 1448).unwrap();
        let b = g.join(Instant::ZERO, 4026531999, Some("10.0.0.1".parse().unwrap()), 1448).unwrap();
        assert_eq!(a.group.as_deref(), Some("veth-a"));
        assert_eq!(b.group.as_deref(), Some("veth-a@ns4026531999"));
        assert_eq!(g.groups().count(), 2);
        // This process's own namespace, named by its number: the same group as 0.
        let c = g.join(Instant::ZERO, own_netns(), Some("10.0.0.1".parse().unwrap()), 1448).unwrap();
        assert_eq!(c.group.as_deref(), Some("veth-a"));
        assert_eq!(g.groups().count(), 2);
    }

    #[test]
    fn a_healthy_member_is_not_broken() {
        let (mut g, _) = grouping("rtac:bdp=50");
        let a = join(&mut g, 0, "10.0.0.1");
        let AnyController::Link(mut m) = a.controller else { panic!("a member") };
        m.on_rtt_sample(Instant::from_millis(10), Duration::from_millis(50));
        m.on_data_consumed(Instant::from_millis(20), 100_000);
        assert_eq!(broken(&m), None);
    }

    #[test]
    fn the_kernel_resolver_answers_for_this_host() {
        let mut k = KernelRoutes::new(None);
        assert_eq!(k.resolve(0, "127.0.0.1".parse().unwrap()), Ok(None));
        assert_eq!(k.resolve(own_netns(), "127.0.0.1".parse().unwrap()), Ok(None));
        // Another namespace without a cgroup to find it in: an error, not a guess.
        assert_eq!(k.resolve(1, "127.0.0.1".parse().unwrap()), Err(RouteError::NoNamespace(1)));
    }
}
