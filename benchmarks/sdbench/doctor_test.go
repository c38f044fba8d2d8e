package sdbench_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestModelDoctorReplies plays the SDBench doctor's reply format against the
// fake endpoint: questions and tests as lists (or the shared single
// question and test_name), the diagnosis; an action the variant does not
// allow, or an ASK without questions, gets one repair request.
func TestModelDoctorReplies(t *testing.T) {
	v := promptViews(t)["no_budget"]
	for _, tc := range []struct {
		name    string
		replies []string
		calls   int
		check   func(t *testing.T, o clinic.DoctorOutput)
	}{
		{"questions as a list", []string{`{"action":"ASK","questions":["Any travel?","Any rash?"]}`}, 1, func(t *testing.T, o clinic.DoctorOutput) {
			require.Equal(t, []string{"Any travel?", "Any rash?"}, sdbench.Questions(o))
		}},
		{"tests as a list", []string{`{"action":"request_test","tests":["CBC","CT chest with contrast"]}`}, 1, func(t *testing.T, o clinic.DoctorOutput) {
			require.Equal(t, clinic.RequestTest, o.Action)
			require.Equal(t, []string{"CBC", "CT chest with contrast"}, sdbench.Tests(o))
		}},
		{"the shared single question", []string{`{"action":"ASK","question":"Any travel? Any rash?"}`}, 1, func(t *testing.T, o clinic.DoctorOutput) {
			require.Equal(t, []string{"Any travel?", "Any rash?"}, sdbench.Questions(o))
		}},
		{"an ASK without questions, then a diagnosis", []string{`{"action":"ASK"}`, `{"action":"FINALIZE","diagnosis":["Vulvovaginal candidiasis"]}`}, 2,
			func(t *testing.T, o clinic.DoctorOutput) {
				require.Equal(t, []string{"Vulvovaginal candidiasis"}, o.Diagnosis)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply {
				return &llmtest.Reply{Status: 200, Content: tc.replies[min(n, len(tc.replies)-1)]}
			}
			c, err := llm.NewClient("doctor", settings.Role{BaseURL: srv.BaseURL(), Model: "m", JSONMode: true, Timeout: settings.Duration(2 * time.Second)}, llm.Options{})
			require.NoError(t, err)
			d, err := sdbench.Benchmark{}.ModelDoctor(c).Decide(context.Background(), v)
			require.NoError(t, err)
			require.False(t, d.LLMError)
			require.Len(t, srv.Requests(), tc.calls)
			tc.check(t, d.Output)
		})
	}
	// Instant answer: only FINALIZE; an ASK is repaired, then malformed twice is an llm_error turn.
	iv := v
	iv.Actions = []string{"FINALIZE"}
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","questions":["Any travel?"]}`}
	}
	c, err := llm.NewClient("doctor", settings.Role{BaseURL: srv.BaseURL(), Model: "m", JSONMode: true, Timeout: settings.Duration(2 * time.Second)}, llm.Options{})
	require.NoError(t, err)
	d, err := sdbench.Benchmark{}.ModelDoctor(c).Decide(context.Background(), iv)
	require.NoError(t, err)
	require.True(t, d.LLMError)
	require.Len(t, srv.Requests(), 2)
}

// TestBuiltinDoctorOrdersTests plays the built-in doctor with no memory on
// the synthetic sample cases and on the first 50 published case reports
// (builtin:sdbench-arena): it orders a billable test in every one (issue 35:
// under sdbench it ordered none in 50 real cases, since only memory ever
// named a test).
func TestBuiltinDoctorOrdersTests(t *testing.T) {
	splits, err := sdbench.ArenaSplits()
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		cases []clinic.Case
	}{
		{"synthetic", sampleCases(t)},
		{"published", splits[sdbench.ArenaStream][:50]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0
			for _, c := range tc.cases {
				orders := builtinOrders(t, c)
				require.Positive(t, orders, c.ID)
				total += orders
			}
			t.Logf("%d cases: %d billable orders, at least one in every case", len(tc.cases), total)
		})
	}
}

// builtinOrders plays one episode with the built-in doctor and counts its
// billable orders.
func builtinOrders(t *testing.T, c clinic.Case) (orders int) {
	t.Helper()
	env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
	for !env.Done() {
		d, err := actor.Builtin{}.Decide(context.Background(), env.View(nil, nil))
		require.NoError(t, err)
		for _, o := range sdbench.TurnOf(step(t, env, d.Output)).Orders {
			if o.Price > 0 {
				orders++
			}
		}
	}
	return orders
}
