//go:build !unix

package bench

import "time"

// selfCPU is not measured outside unix; the benchmark reports 0.
func selfCPU() time.Duration { return 0 }

// procCPU is not available outside Linux.
func procCPU(int) time.Duration { return -1 }
