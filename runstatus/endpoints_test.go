package runstatus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results"
)

// TestEndpoints: roles on one endpoint are summed into it, the limit is the
// latest reading of any of them, and roles without a limiter are left out.
func TestEndpoints(t *testing.T) {
	const a, b = "http://gpu:8000/v1 qwen", "https://api.example/v1 big"
	got := Endpoints(map[string]results.Usage{
		"doctor":  {Endpoint: a, Calls: 90, RateLimited: 6, WaitedMS: 1500, Limit: 3, LimitAt: 2000},
		"patient": {Endpoint: a, Calls: 54, RateLimited: 0, WaitedMS: 250, Limit: 5, LimitAt: 1000},
		"judge":   {Endpoint: b, Calls: 10, Limit: 8, LimitAt: 500},
		"exam":    {Calls: 40}, // built-in: no limiter
	})
	require.Equal(t, []Endpoint{
		// 90+54 calls and 6 429s: 6/150 = 0.04; 1.5+0.25 s waited; the
		// doctor's reading (at 2000) is the later.
		{Endpoint: a, Roles: []string{"doctor", "patient"}, Limit: 3, LimitAt: time.UnixMilli(2000).UTC(), Calls: 144, RateLimited: 6,
			RateLimitedShare: 0.04, WaitedSeconds: 1.75},
		{Endpoint: b, Roles: []string{"judge"}, Limit: 8, LimitAt: time.UnixMilli(500).UTC(), Calls: 10},
	}, got)
	require.Empty(t, Endpoints(map[string]results.Usage{"doctor": {Calls: 3}}))
}
