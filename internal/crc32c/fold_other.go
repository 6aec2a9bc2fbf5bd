//go:build !amd64 || purego

package crc32c

const canFold = false

func fold(s0 uint32, p []byte, rem *[16]byte) { panic("crc32c: fold without the instructions") }
