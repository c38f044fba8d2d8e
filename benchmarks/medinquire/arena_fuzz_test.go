package medinquire

import (
	"bytes"
	"os"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
)

// FuzzImportArena reads any file as a DiagnosisArena release, parquet (a
// file that starts with PAR1) or JSON Lines: no panic, no hang, and every
// case it returns validates as the native format and the benchmark require (issue 37,
// item 12). Seeds: real lines of the release, the shipped parquet cut
// short and damaged, and broken lines.
func FuzzImportArena(f *testing.F) {
	lines, err := os.ReadFile(arenaSample)
	if err != nil {
		f.Fatal(err)
	}
	first, rest, _ := bytes.Cut(lines, []byte("\n"))
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	f.Add(append(append(first, '\n'), second...))
	pq, err := os.ReadFile("data/diagnosisarena/test-00000-of-00001.parquet")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pq[:4096])
	f.Add(append(append([]byte{}, pq[:2048]...), pq[len(pq)-2048:]...))
	for _, s := range []string{"PAR1", "PAR1PAR1", `{"id":1}`, `{"id":"x","Case Information":"\xff"}`, "[{}]", "\xef\xbb\xbf{}", "{"} {
		f.Add([]byte(s))
	}
	lib := benchtest.Library(Benchmark{})
	f.Fuzz(func(t *testing.T, in []byte) {
		cases, _, err := ImportArena(bytes.NewReader(in), "in", true)
		if err != nil {
			return
		}
		for i := range cases {
			if err := lib.Validate(&cases[i]); err != nil {
				t.Fatalf("imported case %d does not validate: %v", i, err)
			}
		}
	})
}
