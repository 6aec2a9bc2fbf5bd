package conformance

import (
	"flag"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rollsafe/rollsafe/sim/memnet"
)

var wallClock = flag.Bool("conformance.wall", false, "run the scenarios over real sockets and the wall clock instead of the deterministic world")

// worldSeed seeds every scenario's in-memory network: a scenario is one
// execution, the same on every run.
const worldSeed = 1

// worlds maps a bubble's *testing.T to its network, for startT.
var worlds sync.Map

// world runs a scenario's body in the deterministic world: a
// testing/synctest bubble (virtual time) where the cluster and the
// producer talk over sim/memnet, so the scenario plays one execution, the
// same every time. With -conformance.wall it runs over sockets and the
// wall clock instead. The body may not call t.Run or t.Parallel.
func world(t *testing.T, body func(t *testing.T)) {
	if *wallClock {
		body(t)
		return
	}
	synctest.Test(t, func(t *testing.T) {
		worlds.Store(t, memnet.New(worldSeed))
		defer worlds.Delete(t)
		body(t)
	})
}

// netOf returns the in-memory network of t's world (nil over sockets).
func netOf(t *testing.T) *memnet.Network {
	n, _ := worlds.Load(t)
	nw, _ := n.(*memnet.Network)
	return nw
}

// oneAtATime returns synctest.Wait for the producers of one bubble, which
// may call it at the same instant: one caller at a time, the others
// waiting on a channel made in the bubble (durably blocked, as Wait needs
// them to be).
func oneAtATime() func() {
	one := make(chan struct{}, 1)
	return func() {
		one <- struct{}{}
		synctest.Wait()
		<-one
	}
}
