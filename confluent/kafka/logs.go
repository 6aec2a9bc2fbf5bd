package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// LogEvent represent the log from librdkafka internal log queue
type LogEvent struct {
	Name      string    // Name of client instance
	Tag       string    // Log tag that provides context to the log Message (e.g., "METADATA" or "GRPCOORD")
	Message   string    // Log message
	Level     int       // Log syslog level, lower is more critical.
	Timestamp time.Time // Log timestamp
}

func (logEvent LogEvent) String() string {
	return fmt.Sprintf("[%v][%s][%s][%d]%s",
		logEvent.Timestamp.Format(time.RFC3339), logEvent.Name, logEvent.Tag, logEvent.Level, logEvent.Message)
}

// Logs returns the log channel if enabled (go.logs.channel.enable), or nil
// otherwise. rollsafe's log records arrive there as LogEvents: Tag
// "ROLLSAFE", Level the syslog level of the record's (error 3, warning 4,
// info 6, debug 7), Message the record's message and attributes as
// key=value. Only records at or below log_level (default 6, info) come.
func (p *Producer) Logs() chan LogEvent { return p.logs }

// logTag is every LogEvent's Tag: rollsafe has no librdkafka subsystems.
const logTag = "ROLLSAFE"

// maxQueuedLogs bounds the log events waiting for the application to read
// the Logs() channel; beyond it the oldest are dropped, so that logging
// never holds the producer up.
const maxQueuedLogs = 10000

// logQueue holds log events between the producer's goroutines, which never
// wait for it, and the goroutine handing them to the Logs() channel.
type logQueue struct {
	mu      sync.Mutex
	events  []LogEvent
	dropped int
	wake    chan struct{}
}

func newLogQueue() *logQueue { return &logQueue{wake: make(chan struct{}, 1)} }

func (q *logQueue) push(ev LogEvent) {
	q.mu.Lock()
	if len(q.events) >= maxQueuedLogs {
		q.events = q.events[1:]
		q.dropped++
	}
	q.events = append(q.events, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the waiting events, and how many were dropped since the
// last take.
func (q *logQueue) take() ([]LogEvent, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs, dropped := q.events, q.dropped
	q.events, q.dropped = nil, 0
	return evs, dropped
}

// forward hands queued events to ch until term is closed; a drop is told
// by an event of its own.
func (q *logQueue) forward(name string, ch chan LogEvent, term <-chan struct{}) {
	for {
		select {
		case <-q.wake:
		case <-term:
			return
		}
		evs, dropped := q.take()
		if dropped > 0 {
			evs = append([]LogEvent{{Name: name, Tag: logTag, Level: 4, Timestamp: time.Now(),
				Message: fmt.Sprintf("%d log events dropped: the Logs() channel was not read", dropped)}}, evs...)
		}
		for _, ev := range evs {
			select {
			case ch <- ev:
			case <-term:
				return
			}
		}
	}
}

// logHandler is the slog.Handler the client logs through when the Logs()
// channel is enabled.
type logHandler struct {
	name   string
	max    int // log_level: the highest syslog level forwarded
	q      *logQueue
	prefix string // attributes added by WithAttrs, formatted
	group  string // WithGroup's, dotted
}

// syslogLevel is a slog level as a syslog severity.
func syslogLevel(l slog.Level) int {
	switch {
	case l >= slog.LevelError:
		return 3
	case l >= slog.LevelWarn:
		return 4
	case l >= slog.LevelInfo:
		return 6
	}
	return 7
}

func (h *logHandler) Enabled(_ context.Context, l slog.Level) bool { return syslogLevel(l) <= h.max }

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	var sb strings.Builder
	sb.WriteString(r.Message)
	sb.WriteString(h.prefix)
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&sb, h.group, a)
		return true
	})
	ts := r.Time
	if ts.IsZero() {
		ts = time.Now()
	}
	h.q.push(LogEvent{Name: h.name, Tag: logTag, Message: sb.String(), Level: syslogLevel(r.Level), Timestamp: ts})
	return nil
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var sb strings.Builder
	sb.WriteString(h.prefix)
	for _, a := range attrs {
		writeAttr(&sb, h.group, a)
	}
	c := *h
	c.prefix = sb.String()
	return &c
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

func writeAttr(sb *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			writeAttr(sb, group+a.Key+".", g)
		}
		return
	}
	fmt.Fprintf(sb, " %s%s=%v", group, a.Key, a.Value.Any())
}
