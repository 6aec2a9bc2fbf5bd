// Package otel exports a rollsafe producer's hooks (client.Hooks) as
// OpenTelemetry metrics. It is a module of its own, so that programs that
// do not use OpenTelemetry never download it:
//
//	m, err := otel.New(meterProvider)
//	p, err := client.NewProducer(client.Brokers(addrs...), client.WithHooks(m.Hooks()))
//
// Instruments (meter "github.com/rollsafe/rollsafe/plugin/otel"):
//
//	rollsafe.records.produced        counter {topic}: records acknowledged
//	rollsafe.records.failed          counter {topic, outcome}: records failed in their batch ("not_written", "outcome_unknown")
//	rollsafe.produced.bytes          counter {topic}: uncompressed bytes of the acknowledged batches
//	rollsafe.sent.bytes              counter {broker}: bytes of batches written (retries too)
//	rollsafe.produce.request.duration histogram (s) {broker}: produce requests' round trips
//	rollsafe.batch.delivery.duration  histogram (s) {topic}: from a batch's closing to its outcome
//	rollsafe.connects, rollsafe.connect.errors, rollsafe.disconnects  counters {broker}
//	rollsafe.throttles counter, rollsafe.throttle.duration counter (s) {broker}
//	rollsafe.epoch.bumps, rollsafe.data_loss.records  counters {topic}
//
// broker is the broker id (-1: a bootstrap or metadata connection).
// Records refused before reaching a batch are not counted.
package otel

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/rollsafe/rollsafe/client"
)

// ScopeName is the name of the meter the instruments belong to.
const ScopeName = "github.com/rollsafe/rollsafe/plugin/otel"

// Metrics holds the instruments fed by its Hooks. One Metrics may serve
// several producers; their counts add up.
type Metrics struct {
	produced, failed, producedBytes, sentBytes metric.Int64Counter
	connects, connectErrors, disconnects       metric.Int64Counter
	throttles, bumps, dataLoss                 metric.Int64Counter
	throttleTime                               metric.Float64Counter
	requestDuration, deliveryDuration          metric.Float64Histogram
}

// New creates the instruments on mp's meter for this package.
func New(mp metric.MeterProvider) (*Metrics, error) {
	meter := mp.Meter(ScopeName)
	m := &Metrics{}
	var errs []error
	ints := []struct {
		c    *metric.Int64Counter
		name string
		desc string
		unit string
	}{
		{&m.produced, "rollsafe.records.produced", "Records acknowledged.", "{record}"},
		{&m.failed, "rollsafe.records.failed", "Records failed in their batch, by outcome.", "{record}"},
		{&m.producedBytes, "rollsafe.produced.bytes", "Uncompressed bytes of the acknowledged batches.", "By"},
		{&m.sentBytes, "rollsafe.sent.bytes", "Bytes of batches written to a broker, retries included.", "By"},
		{&m.connects, "rollsafe.connects", "Connections dialed.", "{connection}"},
		{&m.connectErrors, "rollsafe.connect.errors", "Dials that failed.", "{dial}"},
		{&m.disconnects, "rollsafe.disconnects", "Connections ended.", "{connection}"},
		{&m.throttles, "rollsafe.throttles", "Produce responses carrying a throttle time.", "{response}"},
		{&m.bumps, "rollsafe.epoch.bumps", "Partitions moved to a new producer epoch.", "{bump}"},
		{&m.dataLoss, "rollsafe.data_loss.records", "Acknowledged records found missing from the log.", "{record}"},
	}
	for _, i := range ints {
		c, err := meter.Int64Counter(i.name, metric.WithDescription(i.desc), metric.WithUnit(i.unit))
		*i.c = c
		errs = append(errs, err)
	}
	var err error
	m.throttleTime, err = meter.Float64Counter("rollsafe.throttle.duration", metric.WithDescription("Throttle time brokers asked for."), metric.WithUnit("s"))
	errs = append(errs, err)
	m.requestDuration, err = meter.Float64Histogram("rollsafe.produce.request.duration", metric.WithDescription("Produce requests' round trips."), metric.WithUnit("s"))
	errs = append(errs, err)
	m.deliveryDuration, err = meter.Float64Histogram("rollsafe.batch.delivery.duration", metric.WithDescription("Time from a batch's closing to its outcome."), metric.WithUnit("s"))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// Hooks returns the hooks that feed the instruments, for client.WithHooks.
// Each only records into the SDK's aggregations: none blocks.
func (m *Metrics) Hooks() client.Hooks {
	ctx := context.Background()
	topic := func(t string) metric.MeasurementOption { return metric.WithAttributes(attribute.String("topic", t)) }
	broker := func(b int32) metric.MeasurementOption { return metric.WithAttributes(attribute.Int("broker", int(b))) }
	return client.Hooks{
		BatchSent: func(_ string, _ int32, b int32, _ int, bytes int, _ bool) {
			m.sentBytes.Add(ctx, int64(bytes), broker(b))
		},
		BatchDone: func(t string, _ int32, records, bytes int, d time.Duration, err error) {
			m.deliveryDuration.Record(ctx, d.Seconds(), topic(t))
			switch {
			case err == nil:
				m.produced.Add(ctx, int64(records), topic(t))
				m.producedBytes.Add(ctx, int64(bytes), topic(t))
			case errors.Is(err, client.ErrNotWritten):
				m.failed.Add(ctx, int64(records), metric.WithAttributes(attribute.String("topic", t), attribute.String("outcome", "not_written")))
			default:
				m.failed.Add(ctx, int64(records), metric.WithAttributes(attribute.String("topic", t), attribute.String("outcome", "outcome_unknown")))
			}
		},
		RequestLatency: func(b int32, d time.Duration) {
			m.requestDuration.Record(ctx, d.Seconds(), broker(b))
		},
		BrokerConnect: func(b int32, _ string, _ time.Duration, err error) {
			if err != nil {
				m.connectErrors.Add(ctx, 1, broker(b))
				return
			}
			m.connects.Add(ctx, 1, broker(b))
		},
		BrokerDisconnect: func(b int32, _ string, _ error) {
			m.disconnects.Add(ctx, 1, broker(b))
		},
		BrokerThrottle: func(b int32, d time.Duration) {
			m.throttles.Add(ctx, 1, broker(b))
			m.throttleTime.Add(ctx, d.Seconds(), broker(b))
		},
		EpochBumped: func(t string, _ int32, _ int64, _ int16) {
			m.bumps.Add(ctx, 1, topic(t))
		},
		DataLossDetected: func(ev client.DataLoss) {
			m.dataLoss.Add(ctx, ev.Records, topic(ev.Topic))
		},
	}
}
