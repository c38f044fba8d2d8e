package bench_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchmarkWords are the benchmarks' names and their own action kinds: a
// generic package that holds one has learnt something only a benchmark
// should know (ARCHITECTURE.md, "Profiles").
var benchmarkWords = regexp.MustCompile(`(?i:gpagent|klinike|medinquire|sdbench)|\b(BODY_EXAM|DIAGNOSE|TREAT|REFER|TOOL_CALL|BodyExam|ToolCall)\b`)

// TestGenericPackagesNameNoBenchmark greps every non-test Go file outside
// bench/ for a benchmark's name or one of its action kinds: there is none (the
// list of benchmarks is benchmarks/all).
func TestGenericPackagesNameNoBenchmark(t *testing.T) {
	root := ".."
	var hits []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "bench" || rel == "benchmarks" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			if m := benchmarkWords.FindString(sc.Text()); m != "" {
				hits = append(hits, rel+":"+itoa(n)+": "+m)
			}
		}
		return sc.Err()
	})
	require.NoError(t, err)
	require.Empty(t, hits, "generic packages name a benchmark; ask the run's benchmark for the capability instead (bench/bench.go)")
}

func itoa(n int) string { return strconv.Itoa(n) }
