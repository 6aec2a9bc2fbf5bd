package idempotence

import "fmt"

// A partition is in exactly one state at a time: what it owes before it
// sends again. Every change goes through partition.on, which looks the
// next state up in transitions below; README's state diagram is checked
// against that table (TestStateDiagram).
//
// The fields of a partition that stay beside its state are orthogonal to
// it — any of them can go with any state:
//
//   - cautious: one batch in flight until a success (after an error, or
//     under a producer id the partition never had acknowledged). It limits
//     the window while sending and outlives reads and bumps.
//   - desync: the broker's sequence state may disagree with ours, so the
//     read that settles the partition renumbers what it does not show. Set
//     with the read; cleared when a read completes, not when it fails (the
//     next read still counts it).
//   - wideRead: the read asked does not start at the anchor (there is
//     none, or it is gone). A parameter of the read, like readFrom.
//   - hasLeader, looked, knownEpoch: what the metadata said; a partition
//     in any state may lose its leader or learn one.
//   - stopped: after a reported data loss (Config.StopOnDataLoss) every
//     batch known not written fails with it and nothing is sent, read or
//     bumped again — until the topic is re-created, which starts the
//     partition over. The state goes on under it: a read already asked
//     is still applied (what it finds written is delivered, the rest
//     fails), and a read due holds the deliveries.
//   - hasID, hasAckedPID, hasAckedSeq, hasAnchor: whether an optional
//     value (identity, producer id acknowledged, sequence acknowledged,
//     anchor) is known.

// pstate is where a partition stands.
type pstate uint8

const (
	// psSending: nothing owed; sends what the window, the leader, the
	// identity and the backoff allow.
	psSending pstate = iota
	// psDraining: the leader moved while batches were in flight to the old
	// one; nothing is sent until they are answered (batches of one
	// partition are never in flight to two leaders at once).
	psDraining
	// psBumpDue: a sequence hole (a batch failed, split, or written under
	// a stale epoch); once drained (and every batch awaiting a split
	// split), the partition moves to a fresh epoch and renumbers every
	// unfinished batch from 0 — after a read, if a batch's outcome is
	// unknown (psReadDueBump).
	psBumpDue
	// psReadDue: once drained and the backoff over, the log's tail is read
	// (ReadTail): a batch's outcome is unknown, the broker disagrees with
	// our sequences, or the log was truncated.
	psReadDue
	// psReadDueBump: psReadDue, and the read ends in a bump (a hole is
	// known besides).
	psReadDueBump
	// psReading: ReadTail asked, TailRead pending.
	psReading
	// psReadingBump: psReading, and the read ends in a bump.
	psReadingBump
	// psReadingStale: the read pending is of a deleted topic's log: it is
	// dropped when it comes, and the partition then bumps.
	psReadingStale
	numStates
)

var stateNames = [numStates]string{"Sending", "Draining", "BumpDue", "ReadDue", "ReadDueBump", "Reading", "ReadingBump", "ReadingStale"}

func (s pstate) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("pstate(%d)", uint8(s))
}

// sendingOK reports a state that lets batches out (psDraining once
// nothing is in flight).
func (s pstate) sendingOK() bool { return s <= psDraining }

// bumpOwed reports a state that ends in a fresh epoch.
func (s pstate) bumpOwed() bool {
	return 1<<s&(1<<psBumpDue|1<<psReadDueBump|1<<psReadingBump|1<<psReadingStale) != 0
}

// readOwed reports a read due or under way (deliveries wait for it).
func (s pstate) readOwed() bool { return s >= psReadDue }

// readDue reports a read to ask once drained.
func (s pstate) readDue() bool { return s == psReadDue || s == psReadDueBump }

// reading reports a read asked and not yet answered.
func (s pstate) reading() bool { return s >= psReading }

// pevent is what moves a partition from one state to another.
type pevent uint8

const (
	evLeaderMoved  pevent = iota // LeaderChanged to another leader (or leader epoch) with batches in flight
	evDrained                    // nothing in flight any more: the partition sends again
	evNeedBump                   // a batch leaves a sequence hole
	evNeedRead                   // a batch's outcome must be read from the log
	evBumped                     // drained: a fresh epoch, every unfinished batch renumbered
	evReadAsked                  // ReadTail emitted
	evReadAnswered               // TailRead came for the read asked
	evReadClean                  // the read shows no hole: what it does not show is resent unchanged
	evReadHole                   // the read leaves a hole (or the broker was desynchronised)
	evReadFailed                 // no read possible and nothing uncertain left: every batch is known not written
	evRecreated                  // the topic was deleted and created again
	evClosed                     // Close
	numEvents
)

var eventNames = [numEvents]string{"LeaderMoved", "Drained", "NeedBump", "NeedRead", "Bumped", "ReadAsked", "ReadAnswered", "ReadClean", "ReadHole", "ReadFailed", "Recreated", "Closed"}

func (e pevent) String() string {
	if e < numEvents {
		return eventNames[e]
	}
	return fmt.Sprintf("pevent(%d)", uint8(e))
}

// transition is one row of the table.
type transition struct {
	from pstate
	ev   pevent
	to   pstate
	why  string
}

// transitions is every state change a partition makes. A pair (from, ev)
// appears at most once; a pair not listed does not happen (the code that
// raises ev guards it: the comments say why).
var transitions = []transition{
	{psSending, evLeaderMoved, psDraining, "batches in flight to the old leader are answered before any goes to the new one"},
	{psDraining, evLeaderMoved, psDraining, "still draining, to whichever leader"},
	{psBumpDue, evLeaderMoved, psBumpDue, "a bump waits for the drain anyway"},
	{psReadDue, evLeaderMoved, psReadDue, "a read waits for the drain anyway"},
	{psReadDueBump, evLeaderMoved, psReadDueBump, "a read waits for the drain anyway"},
	// (No LeaderMoved while reading: a read is asked with nothing in
	// flight, and nothing is sent until it ends.)

	{psDraining, evDrained, psSending, "every batch sent to the old leader was answered"},

	{psSending, evNeedBump, psBumpDue, "drain, then a fresh epoch"},
	{psDraining, evNeedBump, psBumpDue, "the bump waits for the drain"},
	{psBumpDue, evNeedBump, psBumpDue, "one bump closes every hole"},
	{psReadDue, evNeedBump, psReadDueBump, "the read ends in a bump"},
	{psReadDueBump, evNeedBump, psReadDueBump, "one bump closes every hole"},
	{psReading, evNeedBump, psReadingBump, "the read ends in a bump"},
	{psReadingBump, evNeedBump, psReadingBump, "one bump closes every hole"},
	// (No NeedBump in ReadingStale: a re-creation leaves no batch holding
	// a sequence but those awaiting a split, which expire through their
	// parts and are never purged.)

	{psSending, evNeedRead, psReadDue, "drain, then read the tail"},
	{psDraining, evNeedRead, psReadDue, "the read waits for the drain"},
	{psBumpDue, evNeedRead, psReadDueBump, "an unknown outcome is read before anything is renumbered"},
	{psReadDue, evNeedRead, psReadDue, "one read settles every batch"},
	{psReadDueBump, evNeedRead, psReadDueBump, "one read settles every batch"},
	{psReading, evNeedRead, psReading, "the read under way settles it"},
	{psReadingBump, evNeedRead, psReadingBump, "the read under way settles it"},
	// (No NeedRead in ReadingStale: a re-creation fails every batch whose
	// outcome is unknown and renumbers the rest, so none is left to read.)

	{psBumpDue, evBumped, psSending, "renumbered from 0 under a fresh epoch"},

	{psReadDue, evReadAsked, psReading, "ReadTail emitted"},
	{psReadDueBump, evReadAsked, psReadingBump, "ReadTail emitted"},

	{psReading, evReadAnswered, psReadDue, "the read is applied (it may be asked again)"},
	{psReadingBump, evReadAnswered, psReadDueBump, "the read is applied (it may be asked again)"},
	{psReadingStale, evReadAnswered, psBumpDue, "a deleted topic's log: dropped"},

	{psReadDue, evReadClean, psSending, "nothing the read misses leaves a hole: resent unchanged"},
	// (No ReadClean from ReadDueBump: a bump owed makes every read end in
	// ReadHole.)
	{psReadDue, evReadHole, psBumpDue, "what follows the hole (or the desync) is renumbered"},
	{psReadDueBump, evReadHole, psBumpDue, "what follows the hole is renumbered"},
	{psReadDue, evReadFailed, psBumpDue, "nothing uncertain left: every batch is known not written"},
	{psReadDueBump, evReadFailed, psBumpDue, "nothing uncertain left: every batch is known not written"},

	{psSending, evRecreated, psBumpDue, "the new topic's batches go from seq 0 under a fresh epoch"},
	{psDraining, evRecreated, psBumpDue, "the old requests are answered first: the bump waits for the drain"},
	{psBumpDue, evRecreated, psBumpDue, "the new topic's batches go from seq 0 under a fresh epoch"},
	{psReadDue, evRecreated, psBumpDue, "the old log is not read"},
	{psReadDueBump, evRecreated, psBumpDue, "the old log is not read"},
	{psReading, evRecreated, psReadingStale, "the read under way is of the old log"},
	{psReadingBump, evRecreated, psReadingStale, "the read under way is of the old log"},
	{psReadingStale, evRecreated, psReadingStale, "still of an old log"},

	{psSending, evClosed, psSending, "nothing owed"},
	{psDraining, evClosed, psDraining, "nothing in flight any more"},
	{psBumpDue, evClosed, psBumpDue, "the epoch still moves (nothing is left to renumber)"},
	{psReadDue, evClosed, psSending, "no read after Close"},
	{psReadDueBump, evClosed, psBumpDue, "no read after Close; the epoch still moves"},
	{psReading, evClosed, psSending, "the read's answer is ignored"},
	{psReadingBump, evClosed, psBumpDue, "the read's answer is ignored; the epoch still moves"},
	{psReadingStale, evClosed, psBumpDue, "the read's answer is ignored; the epoch still moves"},
}

// next is transitions indexed by state and event; ok is false where the
// table has no row.
var next = func() (t [numStates][numEvents]struct {
	to pstate
	ok bool
}) {
	for _, r := range transitions {
		if t[r.from][r.ev].ok {
			panic(fmt.Sprintf("idempotence: transition %v on %v listed twice", r.from, r.ev))
		}
		t[r.from][r.ev].to, t[r.from][r.ev].ok = r.to, true
	}
	return t
}()

// checkTransitions makes on panic on a transition the table lacks. Only
// the package's tests set it (the rule tests, the exhaustive search and
// the random walks play every transition under it); the code that raises
// an event guards it, so without the check such a transition leaves the
// state as it is.
var checkTransitions = false

// on moves p along the table on ev.
func (p *partition) on(ev pevent) {
	n := next[p.state][ev]
	if !n.ok {
		if checkTransitions {
			panic(fmt.Sprintf("idempotence: %v: no transition from %v on %v", p.tp, p.state, ev))
		}
		return
	}
	p.state = n.to
}
