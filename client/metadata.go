package client

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/protocol"
)

// topicSet is the set of topics the producer writes to, which every
// metadata refresh asks for. The loop adds to it; the metadata loop reads it.
type topicSet struct {
	mu    sync.Mutex
	names []string
}

func (s *topicSet) add(topic string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.names, topic) {
		s.names = append(s.names, topic)
	}
}

func (s *topicSet) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.names)
}

// viewChanged hands the loop each metadata snapshot a refresh makes, from
// whichever goroutine refreshed (Metadata.Watch: called before the
// refresh's outcome can be read from the view, so the snapshot is queued
// ahead of any batch of a topic it made known). It does not wake the loop:
// the snapshot is taken with the loop's next input.
func (p *Producer) viewChanged(s *protocol.Snapshot) { p.loop.in.put(metadataIn{view: s}) }

// topicSeen records that the producer writes to topic.
func (p *Producer) topicSeen(topic string) { p.topics.add(topic) }

// kickMetadata asks the metadata loop for a refresh (coalesced).
func (p *Producer) kickMetadata() {
	select {
	case p.metaKick <- struct{}{}:
	default:
	}
}

// metadataLoop refreshes metadata when kicked and every MetadataMaxAge, and
// tells the loop, which moves partitions to their leaders. A failed refresh
// is retried after a pause that grows; a kick is served after at most
// RetryBackoff, so storms of refresh requests coalesce. While a broker is
// suspect (suspects.go), which the loop answers after each refresh, a
// refresh follows every suspectRefresh.
func (p *Producer) metadataLoop() {
	t := time.NewTicker(p.cfg.metadataMaxAge)
	defer t.Stop()
	suspect := make(chan bool, 1)
	var retry <-chan time.Time
	backoff := 100 * time.Millisecond
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		case <-p.metaKick:
		case <-retry:
		}
		retry = nil
		p.turn(turnMetadata, "")
		// This refresh serves whatever else asked for one by now: a tick
		// and a kick due at one instant make one refresh, whichever of
		// them the select above took.
		select {
		case <-t.C:
		default:
		}
		select {
		case <-p.metaKick:
		default:
		}
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
		err := p.meta.Refresh(ctx, p.topics.list()...)
		cancel()
		if err != nil {
			p.log.Debug("rollsafe: metadata refresh failed", "err", err)
			retry = time.After(backoff)
			backoff = min(backoff*2, 5*time.Second)
		} else {
			backoff = 100 * time.Millisecond
			p.loop.in.post(metadataIn{view: p.meta.Snapshot(), suspect: suspect})
			select {
			case sus := <-suspect:
				if sus {
					// Watch for the suspect broker's partitions moving.
					retry = time.After(suspectRefresh)
				}
			case <-p.loop.exited:
			case <-p.ctx.Done():
				return
			}
		}
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(p.cfg.retryBackoff):
		}
	}
}
