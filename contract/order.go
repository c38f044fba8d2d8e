package contract

import "math/rand/v2"

// orderStream is the second word of the PCG source of CaseOrder, so an
// ordering's permutation depends on its seed alone (clinevo's choice: the
// bytes of "clinevo").
const orderStream = 0x636c696e65766f

// CaseOrder is the order in which a stream with ordering seed seed plays its
// n cases: index i of the result is the position, in the published order,
// of the case it plays i-th. Seed 0 is the published order. block > 0
// permutes within consecutive blocks of block cases (the last may be
// shorter), so each block keeps its cases; block 0 permutes all n. The
// permutation is a Fisher–Yates shuffle (math/rand/v2's Perm) from a PCG
// source seeded (seed, orderStream): the same on every machine and release,
// so a restart plays the same order.
func CaseOrder(n int, seed uint64, block int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	if seed == 0 || n < 2 {
		return out
	}
	if block <= 0 || block > n {
		block = n
	}
	r := rand.New(rand.NewPCG(seed, orderStream))
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		for i, p := range r.Perm(hi - lo) {
			out[lo+i] = lo + p
		}
	}
	return out
}
