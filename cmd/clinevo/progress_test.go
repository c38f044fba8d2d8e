package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestProgressLines: off a terminal, a row prints when first seen, when its
// status changes and at each tenth of its episodes, with S and an ETA at
// the rate since it was first seen running.
func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(context.Background(), &out)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.update(progressRow{Name: "H0", Status: "pending"})
	p.update(progressRow{Name: "E1", Status: "running", Total: 100})
	now = now.Add(10 * time.Second)
	p.update(progressRow{Name: "E1", Status: "running", Done: 5, Total: 100, Means: 0.5, N: 5}) // within the first tenth: quiet
	now = now.Add(10 * time.Second)
	p.update(progressRow{Name: "E1", Status: "running", Done: 10, Total: 100, Means: 0.41234, N: 10})
	p.update(progressRow{Name: "E1", Status: "completed", Done: 100, Total: 100, Means: 0.6, N: 100})
	p.close()
	require.Equal(t, ""+
		"H0     pending         0/?  S -      ETA -\n"+
		"E1     running       0/100  S -      ETA -\n"+
		"E1     running      10/100  S 0.412  ETA 3m0s\n"+
		"E1     completed   100/100  S 0.600  ETA -\n", out.String())
}
