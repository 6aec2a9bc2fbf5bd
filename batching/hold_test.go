package batching

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestHoldUntilSent: under HoldUntilSent a batch whose linger ends while
// an earlier batch of its partition waits to be sent stays open and fills;
// Sent closes it at once; without Sent it closes SendHold after its linger;
// a partition with nothing waiting closes at its linger as before.
func TestHoldUntilSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const linger = 10 * time.Millisecond
		var mu sync.Mutex
		var got []*Batch
		a, err := NewAccumulator(Config{Linger: linger, Workers: 1, HoldUntilSent: true}, func(b *Batch) {
			mu.Lock()
			got = append(got, b)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		closed := func() []int {
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			var n []int
			for _, b := range got {
				n = append(n, b.Records)
			}
			return n
		}
		tp := TopicPartition{Topic: "t", Partition: 0}
		add := func(n int) {
			for range n {
				if err := a.Append(context.Background(), tp, &Record{Value: []byte("v")}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		add(2)
		time.Sleep(linger)
		if n := closed(); len(n) != 1 || n[0] != 2 {
			t.Fatalf("first batch not closed at its linger: %v", n)
		}
		// The first batch is not sent: the second lingers, then holds.
		add(3)
		time.Sleep(3 * linger)
		add(4)
		if n := closed(); len(n) != 1 {
			t.Fatalf("second batch closed while the first waited to be sent: %v", n)
		}
		a.Sent(got[0])
		if n := closed(); len(n) != 2 || n[1] != 7 {
			t.Fatalf("Sent did not close the held batch with everything appended: %v", n)
		}
		// Unsent again: the third batch holds until SendHold past its linger.
		add(1)
		time.Sleep(linger + SendHold - time.Millisecond)
		if n := closed(); len(n) != 2 {
			t.Fatalf("third batch closed before its hold ended: %v", n)
		}
		time.Sleep(time.Millisecond)
		if n := closed(); len(n) != 3 {
			t.Fatalf("third batch not closed when its hold ended: %v", n)
		}
		// Released without a send (a batch failed before it was written)
		// counts as sent; Sent twice is harmless.
		a.Release(got[1])
		a.Sent(got[2])
		a.Sent(got[2])
		add(1)
		time.Sleep(linger)
		if n := closed(); len(n) != 4 {
			t.Fatalf("a partition with nothing waiting held its batch: %v", n)
		}
		for _, b := range got {
			a.Release(b)
		}
	})
}
