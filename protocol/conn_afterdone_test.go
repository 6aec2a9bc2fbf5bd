package protocol

import (
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"
)

// AfterDone's call comes once, with why the connection died, before Close
// returns; registered on a dead connection it is called at once.
func TestConnAfterDone(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	c := newConn(a, "pipe", ConnConfig{Logger: slog.New(slog.DiscardHandler), MaxInFlight: 1})
	got := make(chan error, 2)
	c.AfterDone(func(err error) { got <- err })
	_ = c.Close()
	select {
	case err := <-got:
		if !errors.Is(err, ErrConnClosed) {
			t.Fatalf("AfterDone got %v, want ErrConnClosed", err)
		}
	default:
		t.Fatal("Close returned before AfterDone's call")
	}
	c.AfterDone(func(err error) { got <- err })
	select {
	case err := <-got:
		if !errors.Is(err, ErrConnClosed) {
			t.Fatalf("late AfterDone got %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("AfterDone on a dead connection was not called")
	}
}
