package bench

// Pin the peer modules this module exists for; the tests beside this file use them.
import (
	_ "github.com/IBM/sarama"
	_ "github.com/rollsafe/rollsafe/compress"
	_ "github.com/stretchr/testify/require"
	_ "github.com/twmb/franz-go/pkg/kfake"
	_ "github.com/twmb/franz-go/pkg/kgo"
	_ "github.com/twmb/franz-go/pkg/kmsg"
)
