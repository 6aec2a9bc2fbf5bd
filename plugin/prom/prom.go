// Package prom exports a rollsafe producer's hooks (client.Hooks) as
// Prometheus metrics. It is a module of its own, so that programs that do
// not use Prometheus never download it:
//
//	m := prom.New("rollsafe")
//	prometheus.MustRegister(m)
//	p, err := client.NewProducer(client.Brokers(addrs...), client.WithHooks(m.Hooks()))
//
// Metrics (every name prefixed with the namespace and "_"):
//
//	records_produced_total{topic}               records acknowledged
//	records_failed_total{topic,outcome}         records failed in their batch: outcome "not_written" or "outcome_unknown"
//	produced_bytes_total{topic}                 uncompressed bytes of the acknowledged batches
//	sent_bytes_total{broker}                    bytes of batches written to broker (retries too)
//	produce_request_duration_seconds{broker}    histogram: produce requests' round trips
//	batch_delivery_duration_seconds{topic}      histogram: from a batch's closing to its outcome
//	connects_total{broker}, connect_errors_total{broker}, disconnects_total{broker}
//	throttles_total{broker}, throttle_seconds_total{broker}
//	epoch_bumps_total{topic}, data_loss_records_total{topic}
//
// broker is the broker id ("-1": a bootstrap or metadata connection).
// Records refused before reaching a batch (an unknown topic, a full
// buffer) are not counted: their callbacks say so.
package prom

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollsafe/rollsafe/client"
)

// Metrics holds the collectors fed by its Hooks. It is a
// prometheus.Collector: register it once. One Metrics may serve several
// producers; their counts add up.
type Metrics struct {
	produced, failed, producedBytes, sentBytes  *prometheus.CounterVec
	connects, connectErrors, disconnects        *prometheus.CounterVec
	throttles, throttleSeconds, bumps, dataLoss *prometheus.CounterVec
	requestDuration, deliveryDuration           *prometheus.HistogramVec
	all                                         []prometheus.Collector
}

// New returns the metrics, named namespace_… ("rollsafe" if empty).
func New(namespace string) *Metrics {
	if namespace == "" {
		namespace = "rollsafe"
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help,
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}, labels) // 0.5ms … 16s
	}
	m := &Metrics{
		produced:         counter("records_produced_total", "Records acknowledged.", "topic"),
		failed:           counter("records_failed_total", "Records failed in their batch, by outcome (not_written, outcome_unknown).", "topic", "outcome"),
		producedBytes:    counter("produced_bytes_total", "Uncompressed bytes of the acknowledged batches.", "topic"),
		sentBytes:        counter("sent_bytes_total", "Bytes of batches written to a broker, retries included.", "broker"),
		connects:         counter("connects_total", "Connections dialed.", "broker"),
		connectErrors:    counter("connect_errors_total", "Dials that failed.", "broker"),
		disconnects:      counter("disconnects_total", "Connections ended.", "broker"),
		throttles:        counter("throttles_total", "Produce responses carrying a throttle time.", "broker"),
		throttleSeconds:  counter("throttle_seconds_total", "Throttle time brokers asked for.", "broker"),
		bumps:            counter("epoch_bumps_total", "Partitions moved to a new producer epoch.", "topic"),
		dataLoss:         counter("data_loss_records_total", "Acknowledged records found missing from the log.", "topic"),
		requestDuration:  histogram("produce_request_duration_seconds", "Produce requests' round trips.", "broker"),
		deliveryDuration: histogram("batch_delivery_duration_seconds", "Time from a batch's closing to its outcome.", "topic"),
	}
	m.all = []prometheus.Collector{m.produced, m.failed, m.producedBytes, m.sentBytes, m.connects, m.connectErrors,
		m.disconnects, m.throttles, m.throttleSeconds, m.bumps, m.dataLoss, m.requestDuration, m.deliveryDuration}
	return m
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.all {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.all {
		c.Collect(ch)
	}
}

// Hooks returns the hooks that feed the metrics, for client.WithHooks.
// Each only updates an atomic counter or histogram: none blocks.
func (m *Metrics) Hooks() client.Hooks {
	return client.Hooks{
		BatchSent: func(_ string, _ int32, broker int32, _ int, bytes int, _ bool) {
			m.sentBytes.WithLabelValues(brokerLabel(broker)).Add(float64(bytes))
		},
		BatchDone: func(topic string, _ int32, records, bytes int, d time.Duration, err error) {
			m.deliveryDuration.WithLabelValues(topic).Observe(d.Seconds())
			switch {
			case err == nil:
				m.produced.WithLabelValues(topic).Add(float64(records))
				m.producedBytes.WithLabelValues(topic).Add(float64(bytes))
			case errors.Is(err, client.ErrNotWritten):
				m.failed.WithLabelValues(topic, "not_written").Add(float64(records))
			default:
				m.failed.WithLabelValues(topic, "outcome_unknown").Add(float64(records))
			}
		},
		RequestLatency: func(broker int32, d time.Duration) {
			m.requestDuration.WithLabelValues(brokerLabel(broker)).Observe(d.Seconds())
		},
		BrokerConnect: func(broker int32, _ string, _ time.Duration, err error) {
			if err != nil {
				m.connectErrors.WithLabelValues(brokerLabel(broker)).Inc()
				return
			}
			m.connects.WithLabelValues(brokerLabel(broker)).Inc()
		},
		BrokerDisconnect: func(broker int32, _ string, _ error) {
			m.disconnects.WithLabelValues(brokerLabel(broker)).Inc()
		},
		BrokerThrottle: func(broker int32, d time.Duration) {
			m.throttles.WithLabelValues(brokerLabel(broker)).Inc()
			m.throttleSeconds.WithLabelValues(brokerLabel(broker)).Add(d.Seconds())
		},
		EpochBumped: func(topic string, _ int32, _ int64, _ int16) {
			m.bumps.WithLabelValues(topic).Inc()
		},
		DataLossDetected: func(ev client.DataLoss) {
			m.dataLoss.WithLabelValues(ev.Topic).Add(float64(ev.Records))
		},
	}
}

func brokerLabel(id int32) string { return strconv.Itoa(int(id)) }
