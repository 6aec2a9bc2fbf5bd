package protocol

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Describe asks a broker for the cluster's metadata: its brokers and the
// given topics (nil: every topic the broker lets this client describe;
// an empty, non-nil slice: none). It leaves the view as it was (routing
// follows Refresh alone), never asks the broker to create a topic, and
// tries up to three brokers as a refresh does, within ctx (and until
// Close: then ErrClosed). addr is the
// broker that answered. A response naming a broker port or partition
// outside the protocol's ranges is an ErrMalformedResponse; topic and
// partition error codes are the caller's to read.
func (m *Metadata) Describe(ctx context.Context, topics []string) (resp *kmsg.MetadataResponse, addr string, err error) {
	if m.ctx.Err() != nil {
		return nil, "", fmt.Errorf("protocol: metadata: %w", ErrClosed)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()
	req := kmsg.NewPtrMetadataRequest()
	if topics != nil {
		req.Topics = make([]kmsg.MetadataRequestTopic, 0, len(topics))
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
	}
	req.AllowAutoTopicCreation = false
	resp, addr, err = m.ask(ctx, req, checkMetadata)
	if err != nil {
		return nil, "", fmt.Errorf("protocol: metadata: %w", err)
	}
	return resp, addr, nil
}

// checkMetadata refuses a response Describe cannot hand on as it is.
func checkMetadata(resp *kmsg.MetadataResponse) error {
	if err := ErrorForCode(resp.ErrorCode); err != nil {
		return err
	}
	for _, b := range resp.Brokers {
		if b.Port < 0 || b.Port > 65535 {
			return fmt.Errorf("%w: broker %d has port %d", ErrMalformedResponse, b.NodeID, b.Port)
		}
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.Partition < 0 {
				return fmt.Errorf("%w: a topic has partition %d", ErrMalformedResponse, p.Partition)
			}
		}
	}
	return nil
}
