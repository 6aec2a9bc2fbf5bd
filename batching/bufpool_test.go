package batching

import "testing"

// Every size gets a class whose buffers hold it and waste under 25 %, and a
// buffer goes back to a class it can serve.
func TestBufClasses(t *testing.T) {
	for n := 1; n <= 1<<22; n += 1 + n/97 {
		k := bufClassFor(n)
		size := bufClassSize(k)
		if size < n || (n > minBufSize && size > n+n/4) {
			t.Fatalf("n=%d: class %d of %d bytes", n, k, size)
		}
		if k > 0 && bufClassSize(k-1) >= n {
			t.Fatalf("n=%d: class %d, but %d (%d bytes) holds it", n, k, k-1, bufClassSize(k-1))
		}
		if got := bufClassOf(size); got != k {
			t.Fatalf("cap %d: class %d, want %d", size, got, k)
		}
		if c := bufClassOf(n); c >= 0 && bufClassSize(c) > n {
			t.Fatalf("cap %d: class %d of %d bytes", n, c, bufClassSize(c))
		}
	}
	if bufClassSize(bufClasses-1) != 1<<30 {
		t.Fatalf("largest class %d bytes", bufClassSize(bufClasses-1))
	}
	var p bufPool
	p.maxBytes = 1 << 20
	b := p.get(5000)
	if cap(b) != 5<<10 {
		t.Fatalf("get(5000): cap %d", cap(b))
	}
	p.put(b)
	if c := p.get(4097); cap(c) != 5<<10 || p.bytes != 0 {
		t.Fatalf("pooled buffer not reused: cap %d, %d bytes pooled", cap(c), p.bytes)
	}
}
