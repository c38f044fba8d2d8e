package timing

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// Write prints the report of the stream whose run is run: the wall time
// and the runs and workflow tasks by workflow type on one line, then a
// table of the distributions (Rows) in milliseconds.
func (r Report) Write(w io.Writer, run string) error {
	fmt.Fprintf(w, "stream %s: %.1f s;", run, r.WallSeconds)
	for _, t := range slices.Sorted(maps.Keys(r.Runs)) {
		fmt.Fprintf(w, " %s: %d runs, %d workflow tasks;", t, r.Runs[t], r.WorkflowTasks[t])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "\t   count\t  p50 ms\t  p90 ms\t  max ms")
	for _, row := range r.Rows() {
		d := row.Dist
		fmt.Fprintf(tw, "%s\t%8d\t%8.1f\t%8.1f\t%8.1f\n", row.Name, d.Count, d.P50, d.P90, d.Max)
	}
	if r.UnreadMarkers > 0 {
		fmt.Fprintf(tw, "local-activity markers not decoded\t%8d\t\t\t\n", r.UnreadMarkers)
	}
	return tw.Flush()
}
