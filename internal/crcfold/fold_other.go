//go:build !amd64 || purego

package crcfold

const canFold = false

func fold(s0 uint32, p []byte, rem *[16]byte, k *[6][2]uint64) {
	panic("crcfold: fold without the instructions")
}
