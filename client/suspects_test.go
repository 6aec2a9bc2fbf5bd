package client

import (
	"testing"
	"time"
)

// A suspect broker stays suspect until it answers or its
// window passes, so that a broker gone for good does not keep metadata
// refreshing twice a second.
func TestSuspectSet(t *testing.T) {
	var s suspectSet
	if s.any() || s.has(1) {
		t.Fatal("empty set reports a suspect")
	}
	s.heard(1, brokerTimedOut)
	if !s.any() || !s.has(1) || s.has(2) {
		t.Fatal("broker 1 not suspect after a timeout")
	}
	s.heard(1, livenessUnknown)
	if !s.has(1) {
		t.Fatal("broker 1 not suspect after a request failed otherwise")
	}
	s.heard(1, brokerAnswered)
	if s.any() || s.has(1) {
		t.Fatal("broker 1 still suspect after answering")
	}
	s.set(2, true)
	s.m[2] = time.Now().Add(-suspectWindow - time.Second)
	if s.has(2) || s.any() {
		t.Fatal("broker 2 suspect past its window")
	}
	if len(s.m) != 0 {
		t.Fatal("any kept an expired suspect")
	}
}
