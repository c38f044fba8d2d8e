package llm

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteChecks prints `roles check`'s table: one row per checked role with
// the conditions that share it, each step's answer and the verdict.
func WriteChecks(w io.Writer, checks []ConditionCheck) error {
	if len(checks) == 0 {
		_, err := fmt.Fprintln(w, "no model roles: every role is built in")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CONDITIONS\tROLE\tPROVIDER\tMODEL\tFORMAT\tREACHABLE\tAUTH\tMODEL FOUND\tJSON MODE\tTOOLS\tPARSED\tLATENCY\tVERDICT")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0fms\t%s\n", strings.Join(c.Conditions, ","), c.Role, c.Provider, c.Model, c.Format,
			c.Reachable, c.Auth, c.ModelFound, c.JSONMode, c.Tools, c.FormatOK, c.LatencyMS, c.Verdict)
	}
	return tw.Flush()
}

// ChecksError is the error of a check where roles failed, counting them; nil
// when every role passed.
func ChecksError(checks []ConditionCheck) error {
	if failed := FailedChecks(checks); failed > 0 {
		return fmt.Errorf("roles check: %d of %d model roles failed", failed, len(checks))
	}
	return nil
}

// FailedChecks counts the checks whose role failed.
func FailedChecks(checks []ConditionCheck) int {
	n := 0
	for _, c := range checks {
		if !c.OK {
			n++
		}
	}
	return n
}
