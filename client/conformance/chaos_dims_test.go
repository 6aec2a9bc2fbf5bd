package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// Schedule dimensions beyond scenario.Random's fault mix (two defects
// once lived where no schedule went). They are drawn from a second
// stream of the seed, so a seed's fault schedule is the one it always had;
// a schedule whose draw leaves them off (about half) plays exactly as
// before. With them on, a schedule may have:
//   - every partition led by one broker (moved there before the play), so
//     that partitions share one connection and one outbox;
//   - one request in flight per connection and one connection per broker,
//     so that a partition's batch waits in the outbox behind another's;
//   - a short metadata maximum age, so that the producer hears of a move
//     from metadata as well as from KIP-951 hints;
//   - one or two holds: the leader holds a partition's next request (below
//     or past the request timeout) while the application produces to
//     another partition, may purge (the queue, what is in flight, or both),
//     and a partition (mostly that other one) moves to another leader
//     before the hold ends.
type chaosDims struct {
	on          bool
	colocate    bool
	oneInFlight bool
	metaAge     time.Duration // 0: the producer's default
	holds       []chaosHold
	// resets after an answer, drawn for any seed (on or not) after the
	// draws above: drawResets; inFlight, drawn with them, is the
	// producer's MaxInFlight (0: its default).
	resets   []chaosReset
	inFlight int
}

// chaosHold is one hold: the leader of part holds its next request hold
// from at; n records go to other from produceAt; purge (if any) at purgeAt;
// move (if >= 0) moves to another leader at moveAt.
type chaosHold struct {
	at, hold  time.Duration
	part      int32
	other     int32
	n         int
	produceAt time.Duration
	purge     client.PurgeFlags
	purgeAt   time.Duration
	move      int32
	moveAt    time.Duration
}

// chaosDimsStream keys the second stream of a seed (scenario.Random uses
// its own).
const chaosDimsStream = 0xd1a5

// drawDims draws seed's dimensions over a schedule of span with
// partitions partitions.
func drawDims(seed int64, partitions int32, span time.Duration) chaosDims {
	rng := rand.New(rand.NewPCG(uint64(seed), chaosDimsStream))
	var d chaosDims
	if rng.IntN(2) == 0 && !chaosPlain[seed] {
		d.drawHolds(rng, partitions, span)
	}
	// Drawn after the holds' draws, so those stay as they were.
	if !chaosPlain[seed] && !chaosBeforeResets[seed] {
		d.resets = drawResets(rng, partitions, span)
		// With resets, half the schedules keep two or three requests in
		// flight per connection (unless one is drawn above): the outbox
		// then fills behind a stall, and each answer hands the sender
		// the next request.
		if len(d.resets) > 0 && !d.oneInFlight && rng.IntN(2) == 0 {
			d.inFlight = 2 + rng.IntN(2)
		}
	}
	return d
}

// drawHolds draws the dimensions of the first kind: co-location, one
// request in flight, the metadata age and the holds.
func (d *chaosDims) drawHolds(rng *rand.Rand, partitions int32, span time.Duration) {
	d.on = true
	d.colocate = rng.IntN(4) != 0
	d.oneInFlight = rng.IntN(4) != 0
	switch rng.IntN(3) {
	case 1:
		d.metaAge = 50 * time.Millisecond
	case 2:
		d.metaAge = 200 * time.Millisecond
	}
	for range 1 + rng.IntN(2) {
		h := chaosHold{at: time.Duration(rng.Int64N(int64(span))).Round(time.Millisecond), part: rng.Int32N(partitions), move: -1}
		if rng.IntN(4) == 0 {
			h.hold = time.Duration(600+rng.IntN(1900)) * time.Millisecond // past the request timeout
		} else {
			h.hold = time.Duration(60+rng.IntN(390)) * time.Millisecond
		}
		h.other = (h.part + 1 + rng.Int32N(max(partitions-1, 1))) % partitions
		h.n = 1 + rng.IntN(8)
		h.produceAt = h.at + time.Duration(5+rng.IntN(35))*time.Millisecond
		switch rng.IntN(6) {
		case 0, 1:
			h.purge = client.PurgeInFlight
		case 2:
			h.purge = client.PurgeQueued | client.PurgeInFlight
		case 3:
			h.purge = client.PurgeQueued
		}
		h.purgeAt = h.produceAt + time.Duration(2+rng.IntN(30))*time.Millisecond
		if rng.IntN(4) != 0 {
			h.move = h.other
			if rng.IntN(4) == 0 {
				h.move = h.part
			}
			left := max(h.at+h.hold-h.purgeAt, time.Millisecond)
			h.moveAt = h.purgeAt + time.Duration(rng.Int64N(int64(left))).Round(time.Millisecond)
		}
		d.holds = append(d.holds, h)
	}
}

// chaosReset is one reset after an answer: the leader of part answers
// its next request from at, and the connection is reset, the producer
// seeing it after after the answer; with expiry the leader's producer
// expiry check runs as it answers. With a stall, the leader first holds
// that request so long (a pause: the requests behind it pile up on the
// connection and in the producer's outbox), then answers and resets.
type chaosReset struct {
	at     time.Duration
	part   int32
	after  time.Duration
	expiry bool
	stall  time.Duration
}

// drawResets draws a schedule's resets after an answer (the
// window of the sender's fence): none for half the schedules, else one to three, each at a moment of
// the span on any partition, half of them after a stall of 20 to 250 ms.
// The reset reaches the producer 1 to 40 µs after the answer, while the
// requests behind the answered one are in flight: the reset fails them,
// and the request the loop builds on the answer with them (in the
// deterministic world the loop and the sender take no virtual time, so
// that request is written at the answer's instant; over sockets,
// TestChaosSockets, the sender's own time between its look at the failures
// it has heard of and its use of the connection may let the reset in
// first, the case TestSenderFenceCheckedAfterDial plays). Two in three have the leader run its producer expiry
// check as it answers, which forgets a producer writing records stamped
// long ago (every fourth seed's): the broker then takes a later batch of a
// partition whose earlier one was lost with the connection.
func drawResets(rng *rand.Rand, partitions int32, span time.Duration) []chaosReset {
	if rng.IntN(2) == 0 {
		return nil
	}
	var out []chaosReset
	for range 1 + rng.IntN(3) {
		r := chaosReset{
			at:     time.Duration(rng.Int64N(int64(span))).Round(time.Millisecond),
			part:   rng.Int32N(partitions),
			after:  time.Duration(1+rng.IntN(40)) * time.Microsecond,
			expiry: rng.IntN(3) != 0,
		}
		if rng.IntN(2) == 0 {
			r.stall = time.Duration(20+rng.IntN(231)) * time.Millisecond
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b chaosReset) int { return int(a.at - b.at) })
	return out
}

// String describes the dimensions for a failure message.
func (d chaosDims) String() string {
	var b strings.Builder
	switch {
	case !d.on && len(d.resets) == 0:
		return "dimensions: off (the fault schedule alone)\n"
	case !d.on:
		b.WriteString("dimensions: no holds")
		if d.inFlight > 0 {
			fmt.Fprintf(&b, ", %d requests in flight", d.inFlight)
		}
		b.WriteByte('\n')
	default:
		fmt.Fprintf(&b, "dimensions: colocated leaders %v, one request in flight %v, metadata max age %v",
			d.colocate, d.oneInFlight, d.metaAge)
		if d.inFlight > 0 {
			fmt.Fprintf(&b, ", %d requests in flight", d.inFlight)
		}
		b.WriteByte('\n')
	}
	d.writeResets(&b)
	for i, h := range d.holds {
		fmt.Fprintf(&b, "  hold %d: +%v %s/%d held %v; +%v %d records to %s/%d", i, h.at, topic, h.part, h.hold, h.produceAt, h.n, topic, h.other)
		if h.purge != 0 {
			fmt.Fprintf(&b, "; +%v purge %s", h.purgeAt, purgeWhat(h.purge))
		}
		if h.move >= 0 {
			fmt.Fprintf(&b, "; +%v move %s/%d", h.moveAt, topic, h.move)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// writeResets describes the resets.
func (d chaosDims) writeResets(b *strings.Builder) {
	for _, r := range d.resets {
		expiry := ""
		if r.expiry {
			expiry = ", the leader's expiry check as it answers"
		}
		what := "answered"
		if r.stall > 0 {
			what = fmt.Sprintf("held %v, answered", r.stall)
		}
		fmt.Fprintf(b, "  reset: +%v %s/%d %s, the reset %v after%s\n", r.at, topic, r.part, what, r.after, expiry)
	}
}

// steps adds the dimensions' cluster steps (holds, moves, resets) to
// sched.
func (d chaosDims) steps(sched scenario.Schedule) scenario.Schedule {
	if !d.on && len(d.resets) == 0 {
		return sched
	}
	steps := slices.Clone(sched.Steps)
	for _, h := range d.holds {
		steps = append(steps, scenario.Step{At: h.at, Kind: scenario.DelayProcessing, Topic: topic, Partition: h.part, Broker: scenario.Any, N: 1, Duration: h.hold})
		if h.move >= 0 {
			steps = append(steps, scenario.Step{At: h.moveAt, Kind: scenario.MoveLeader, Topic: topic, Partition: h.move, Broker: scenario.Any})
		}
	}
	for _, r := range d.resets {
		steps = append(steps, scenario.Step{At: r.at, Kind: scenario.ResetAfterResponse, Topic: topic, Partition: r.part, Broker: scenario.Any, N: 1,
			Hold: r.stall, Duration: r.after, ExpiryCheck: r.expiry})
	}
	slices.SortStableFunc(steps, func(a, b scenario.Step) int { return int(a.At - b.At) })
	sched.Steps = steps
	return sched
}

// options are the producer options the dimensions set (after the
// schedule's own).
func (d chaosDims) options() []client.Option {
	var opts []client.Option
	if d.oneInFlight {
		opts = append(opts, client.MaxInFlight(1), client.ProduceConnections(1))
	}
	if d.metaAge > 0 {
		opts = append(opts, client.MetadataMaxAge(d.metaAge))
	}
	if d.inFlight > 0 {
		opts = append(opts, client.MaxInFlight(d.inFlight))
	}
	return opts
}

// prepare co-locates the leaders before the play (the player then takes
// them as the leaders to restore).
func (d chaosDims) prepare(r *rig, partitions int32) error {
	if !d.colocate {
		return nil
	}
	to, _ := r.c.Leader(topic, 0)
	for p := int32(1); p < partitions; p++ {
		if l, _ := r.c.Leader(topic, p); l != to {
			if err := r.c.MoveLeader(topic, p, to); err != nil {
				return fmt.Errorf("co-locating the leaders: %w", err)
			}
		}
	}
	return nil
}

// act plays the dimensions' producer actions (records during the holds,
// purges) from start, at their offsets; it returns when the last is done.
// The i-th action (in time order) comes i+1 µs after its offset, an
// instant of its own: not that of a wave (whole milliseconds), nor that of
// another action, nor that at which the batch of records produced a
// linger before closes. Two inputs at one instant, from two goroutines,
// would reach the producer in an order the scheduler picks, and a seed
// would no longer replay one execution (TestChaosReplay).
func (d chaosDims) act(ctx context.Context, r *rig, start time.Time) error {
	type action struct {
		at time.Duration
		do func() error
	}
	var acts []action
	for i, h := range d.holds {
		acts = append(acts, action{h.produceAt, func() error {
			r.produceTo(ctx, fmt.Sprintf("h%d", i), h.n, one(h.other))
			return nil
		}})
		if h.purge != 0 {
			acts = append(acts, action{h.purgeAt, func() error {
				if err := r.p.Purge(ctx, h.purge); err != nil {
					return fmt.Errorf("purge: %w", err)
				}
				return nil
			}})
		}
	}
	slices.SortStableFunc(acts, func(a, b action) int { return int(a.at - b.at) })
	for i, a := range acts {
		at := start.Add(a.at + time.Duration(i+1)*time.Microsecond)
		select {
		case <-time.After(max(time.Until(at), time.Nanosecond)):
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := a.do(); err != nil {
			return err
		}
	}
	return nil
}

// purgeWhat names what a purge withdraws.
func purgeWhat(f client.PurgeFlags) string {
	var parts []string
	if f&client.PurgeQueued != 0 {
		parts = append(parts, "queued")
	}
	if f&client.PurgeInFlight != 0 {
		parts = append(parts, "in flight")
	}
	return strings.Join(parts, " and ")
}
