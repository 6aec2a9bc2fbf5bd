package main

import (
	"bufio"
	"errors"
	"io"
)

// line is one input line (without its newline). A line longer than the
// reader's limit is not kept: Value is nil and Size says how long it was.
type line struct {
	Value    []byte
	Size     int
	TooLarge bool
}

// lineReader reads newline-terminated lines of at most limit bytes. Longer
// lines are read to their end and reported as too large, so one oversized
// line never stops the lines after it.
type lineReader struct {
	br    *bufio.Reader
	limit int
}

func newLineReader(r io.Reader, limit int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next line; io.EOF after the last one.
func (lr *lineReader) next() (line, error) {
	var l line
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		l.Size += len(chunk)
		if !l.TooLarge {
			if l.Size-trailingNewline(chunk, err) > lr.limit {
				l.TooLarge, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			l.Size--
			if !l.TooLarge {
				l.Value = trimCR(buf[:len(buf)-1])
			}
			return l, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if l.Size == 0 {
				return l, io.EOF
			}
			if !l.TooLarge {
				l.Value = trimCR(buf)
			}
			return l, nil // a last line without a newline
		default:
			return l, err
		}
	}
}

func trailingNewline(chunk []byte, err error) int {
	if err == nil && len(chunk) > 0 {
		return 1
	}
	return 0
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
