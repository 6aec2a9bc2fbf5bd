package sim

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Exchange is one request a broker read and what it did with it.
type Exchange struct {
	Start, End  time.Time
	Broker      int32
	Conn        uint64 // per-broker connection number
	ClientID    string
	Key         int16
	Version     int16
	Correlation int32
	Request     kmsg.Request
	Response    kmsg.Response // nil when none was built
	Outcome     string        // "sent", "dropped", "connection closed", "no response (acks=0)", "sent, connection closed"
}

// ProduceRecord is one partition batch of one produce request, as decided.
type ProduceRecord struct {
	Time          time.Time
	Broker        int32
	Conn          uint64
	Topic         string
	Partition     int32
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	NumRecords    int32
	Acks          int16
	ErrorCode     int16 // as answered (or as it would have been, if the response was dropped)
	Offset        int64 // base offset answered, -1 on error
	Appended      bool  // the batch was written to the log by this request
	Duplicate     bool  // a retry answered with the original offset
	Fault         string
	Outcome       string // what happened to the response
}

// Authentication is one successful SASL authentication of a connection,
// as the broker completed it: the first on a connection, or a KIP-368
// re-authentication.
type Authentication struct {
	Time      time.Time // on the clock session lifetimes are counted by
	Broker    int32
	Conn      uint64 // per-broker connection number, as in Exchange
	Mechanism string
	Principal string
	Reauth    bool          // a re-authentication of an authenticated connection
	Lifetime  time.Duration // the session's lifetime (0: none); it ends at Time+Lifetime
}

// Recorder keeps every exchange, produced partition batch and successful
// SASL authentication, each bounded by RecorderLimit. It is safe for
// concurrent use.
type Recorder struct {
	mu        sync.Mutex
	limit     int
	exchanges []Exchange
	produces  []ProduceRecord
	auths     []Authentication
}

func newRecorder(limit int) *Recorder { return &Recorder{limit: limit} }

func trim[T any](s []T, limit int) []T {
	if limit > 0 && len(s) > limit {
		n := copy(s, s[len(s)-limit/2:])
		clear(s[n:])
		s = s[:n]
	}
	return s
}

func (r *Recorder) exchange(e Exchange) {
	r.mu.Lock()
	r.exchanges = trim(append(r.exchanges, e), r.limit)
	r.mu.Unlock()
}

func (r *Recorder) produce(p ...ProduceRecord) {
	r.mu.Lock()
	r.produces = trim(append(r.produces, p...), r.limit)
	r.mu.Unlock()
}

func (r *Recorder) authentication(a Authentication) {
	r.mu.Lock()
	r.auths = trim(append(r.auths, a), r.limit)
	r.mu.Unlock()
}

// Exchanges returns a copy of the recorded exchanges, oldest first.
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchanges...)
}

// Produces returns a copy of the recorded produce records, oldest first.
func (r *Recorder) Produces() []ProduceRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ProduceRecord(nil), r.produces...)
}

// Authentications returns a copy of the recorded successful SASL
// authentications, oldest first.
func (r *Recorder) Authentications() []Authentication {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Authentication(nil), r.auths...)
}

// Reset forgets everything recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.exchanges, r.produces, r.auths = nil, nil, nil
	r.mu.Unlock()
}

// Dump writes one line per exchange and per produce record, in time order.
func (r *Recorder) Dump(w io.Writer) error {
	ex, pr := r.Exchanges(), r.Produces()
	i, j := 0, 0
	for i < len(ex) || j < len(pr) {
		var err error
		if j >= len(pr) || (i < len(ex) && !ex[i].End.After(pr[j].Time)) {
			e := ex[i]
			i++
			_, err = fmt.Fprintf(w, "%s broker=%d conn=%d client=%q %s v%d corr=%d took=%s outcome=%s\n",
				e.End.Format("15:04:05.000000"), e.Broker, e.Conn, e.ClientID, kmsg.NameForKey(e.Key), e.Version,
				e.Correlation, e.End.Sub(e.Start), e.Outcome)
		} else {
			p := pr[j]
			j++
			_, err = fmt.Fprintf(w, "%s   produce broker=%d %s/%d pid=%d epoch=%d seq=%d n=%d acks=%d err=%d offset=%d appended=%t dup=%t fault=%q outcome=%s\n",
				p.Time.Format("15:04:05.000000"), p.Broker, p.Topic, p.Partition, p.ProducerID, p.ProducerEpoch,
				p.BaseSequence, p.NumRecords, p.Acks, p.ErrorCode, p.Offset, p.Appended, p.Duplicate, p.Fault, p.Outcome)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
