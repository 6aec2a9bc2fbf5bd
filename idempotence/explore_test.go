package idempotence

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

func (pr *Producer) clone() *Producer {
	c := *pr
	c.parts = map[TopicPartition]*partition{}
	c.order = nil
	c.events = slices.Clone(pr.events)
	c.woken = maps.Clone(pr.woken)
	for _, p := range pr.order {
		cp := *p
		cp.batches = make([]*batch, len(p.batches))
		cp.byID = make(map[BatchID]*batch, len(p.byID))
		for i, b := range p.batches {
			nb := *b
			cp.batches[i] = &nb
			cp.byID[b.id] = &nb
		}
		cp.history = slices.Clone(p.history)
		c.parts[p.tp] = &cp
		c.order = append(c.order, &cp)
	}
	return &c
}

func (w *world) clone() *world {
	c := *w
	c.pr = w.pr.clone()
	c.m = w.m.clone()
	c.net = map[TopicPartition][]req{}
	for tp, q := range w.net {
		c.net[tp] = slices.Clone(q)
	}
	c.wb = map[BatchID]*wbatch{}
	for id, b := range w.wb {
		nb := *b
		c.wb[id] = &nb
	}
	c.seqKey = map[TopicPartition]map[numbering]int32{}
	for tp, m := range w.seqKey {
		c.seqKey[tp] = maps.Clone(m)
	}
	c.lastEpoch = maps.Clone(w.lastEpoch)
	c.errSince = maps.Clone(w.errSince)
	c.lastDeliv = maps.Clone(w.lastDeliv)
	c.trace = slices.Clone(w.trace)
	return &c
}

// explore visits every reachable state of a small configuration: at each
// step any partition with a request in flight may be answered, with any fault
// while the fault budget lasts. States already seen are not expanded again.
func explore(t *testing.T, perTP []int, faults int, epochPerPID bool, budget int) int {
	t.Helper()
	type node struct {
		w      *world
		faults int
	}
	cfg := Config{MaxInFlight: 5}
	root := newWorld(t.Fatalf, cfg, epochPerPID, perTP, 0)
	seen := map[string]bool{}
	stack := []node{{root, faults}}
	states := 0
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := fmt.Sprint(n.faults, n.w.key())
		if seen[k] {
			continue
		}
		seen[k] = true
		states++
		if states > budget {
			t.Fatalf("state budget %d exceeded", budget)
		}
		busy := n.w.busy()
		if len(busy) == 0 {
			n.w.quiesce(true)
			continue
		}
		for _, i := range busy {
			for f := fOK; f < numFaults; f++ {
				left := n.faults
				if f != fOK {
					if left == 0 {
						break
					}
					left--
				}
				c := n.w.clone()
				c.step(i, f)
				stack = append(stack, node{c, left})
			}
		}
	}
	return states
}

func TestExploreExhaustive(t *testing.T) {
	cases := []struct {
		perTP  []int
		faults int
	}{
		{[]int{4, 4}, 1},
		{[]int{3, 2}, 2},
		{[]int{2, 2}, 3},
		{[]int{4, 1}, 2},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, epochPerPID := range []bool{false, true} {
		for _, c := range cases {
			name := fmt.Sprintf("batches=%v/faults=%d/epochPerPID=%v", c.perTP, c.faults, epochPerPID)
			t.Run(name, func(t *testing.T) {
				start := time.Now()
				n := explore(t, c.perTP, c.faults, epochPerPID, 2_000_000)
				t.Logf("%d states in %v", n, time.Since(start))
			})
		}
	}
}
