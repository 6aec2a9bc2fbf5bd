// Package client is rollsafe's public idempotent Kafka producer.
package client
