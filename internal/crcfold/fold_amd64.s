//go:build amd64 && !purego

#include "textflag.h"

// func fold(s0 uint32, p []byte, rem *[16]byte, k *[6][2]uint64)
// Four 512-bit registers (sixteen 128-bit lanes) each take the 64 bytes
// at their place in every 256-byte block: a lane is multiplied on by
// k[0] (2048 bits) and the next block's 16 bytes added. Then the
// registers fold one into the next (k[1], 512 bits), and the last
// register's four lanes into one (k[2:6]).
TEXT ·fold(SB), NOSPLIT, $0-48
	MOVL s0+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ rem+32(FP), DI
	MOVQ k+40(FP), R8

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVD     AX, X4
	VPXORQ    Z4, Z0, Z0
	ADDQ      $256, SI
	SUBQ      $256, CX
	VBROADCASTI32X4 0(R8), Z8

loop:
	CMPQ CX, $0
	JEQ  combine
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPTERNLOGD $0x96, 0(SI), Z4, Z0
	VPCLMULQDQ $0x00, Z8, Z1, Z5
	VPCLMULQDQ $0x11, Z8, Z1, Z1
	VPTERNLOGD $0x96, 64(SI), Z5, Z1
	VPCLMULQDQ $0x00, Z8, Z2, Z6
	VPCLMULQDQ $0x11, Z8, Z2, Z2
	VPTERNLOGD $0x96, 128(SI), Z6, Z2
	VPCLMULQDQ $0x00, Z8, Z3, Z7
	VPCLMULQDQ $0x11, Z8, Z3, Z3
	VPTERNLOGD $0x96, 192(SI), Z7, Z3
	ADDQ       $256, SI
	SUBQ       $256, CX
	JMP        loop

combine:
	VBROADCASTI32X4 16(R8), Z8
	VPCLMULQDQ $0x00, Z8, Z0, Z4
	VPCLMULQDQ $0x11, Z8, Z0, Z5
	VPTERNLOGD $0x96, Z5, Z4, Z1
	VPCLMULQDQ $0x00, Z8, Z1, Z4
	VPCLMULQDQ $0x11, Z8, Z1, Z5
	VPTERNLOGD $0x96, Z5, Z4, Z2
	VPCLMULQDQ $0x00, Z8, Z2, Z4
	VPCLMULQDQ $0x11, Z8, Z2, Z5
	VPTERNLOGD $0x96, Z5, Z4, Z3

	// Lanes 0-2 moved on to lane 3 (lane 3's multiplier is zero), then
	// the four products and lane 3 itself added up.
	VMOVDQU64     32(R8), Z8
	VPCLMULQDQ    $0x00, Z8, Z3, Z4
	VPCLMULQDQ    $0x11, Z8, Z3, Z5
	VPXORQ        Z5, Z4, Z4
	VEXTRACTI32X4 $3, Z3, X6
	VEXTRACTI64X4 $1, Z4, Y7
	VPXOR         Y7, Y4, Y4
	VEXTRACTI128  $1, Y4, X7
	VPXOR         X7, X4, X4
	VPXOR         X6, X4, X4
	VMOVDQU       X4, 0(DI)
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL   $0, CX
	XGETBV
	MOVL   AX, eax+0(FP)
	MOVL   DX, edx+4(FP)
	RET
