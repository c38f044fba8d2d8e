package sdbench_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/catalog"
)

// TestPriceTable checks the shipped table: several hundred tests, every
// code with a positive 2025 amount from one of the two CMS schedules, the
// catalog's tests all priced, composite orders summing their codes, and the
// amounts of a few codes read from the CMS files by hand.
func TestPriceTable(t *testing.T) {
	p := sdbench.Prices
	require.GreaterOrEqual(t, len(p.Rows), 400)
	for _, r := range p.Rows {
		require.NotEmpty(t, r.Codes, r.Name)
		sum := 0.0
		for _, c := range r.Codes {
			require.Len(t, c.HCPCS, 5, r.Name)
			require.Positive(t, c.USD, r.Name)
			require.Contains(t, []string{"CLFS", "PFS"}, c.Schedule, r.Name)
			sum += c.USD
		}
		require.InDelta(t, sum, r.USD(), 0.005, r.Name)
	}
	for _, it := range catalog.Default().Items() {
		if it.Free() {
			continue
		}
		_, ok := p.Row(it.Name)
		require.True(t, ok, "the catalog's %q has no price", it.Name)
	}
	for _, tc := range []struct {
		row   string
		codes string
		usd   float64
	}{
		{"complete blood count", "85025", 7.77},             // CLFS RATE 7.77
		{"chest x ray", "71046", 32.67},                     // PFS 1.01 RVU × 32.3465 = 32.67
		{"ct head", "70450", 105.13},                        // PFS 3.25 × 32.3465 = 105.13
		{"echocardiogram", "93306", 187.93},                 // PFS 5.81 × 32.3465 = 187.93
		{"exome sequencing", "81415", 4780},                 // CLFS RATE 4780.00
		{"bone marrow biopsy", "38222+88305+85097", 305.99}, // PFS 169.17 + 69.54 + 67.28
		{"coagulation screen", "85610+85730", 10.30},        // CLFS 4.29 + 6.01
	} {
		r, ok := p.Row(tc.row)
		require.True(t, ok, tc.row)
		var codes []string
		for _, c := range r.Codes {
			codes = append(codes, c.HCPCS)
		}
		require.Equal(t, tc.codes, strings.Join(codes, "+"), tc.row)
		require.InDelta(t, tc.usd, r.USD(), 0.005, tc.row)
	}
}

// TestPriceMatching: an order is matched by a row's name or alias, by the
// catalog name it resolved to, or by the rows' phrases it holds (an order of
// several tests pays each, longest phrase first); what none matches pays
// its category's median and says so.
func TestPriceMatching(t *testing.T) {
	p := sdbench.Prices
	for _, tc := range []struct {
		order, also string
		rows        []string
	}{
		{"FBC", "", []string{"complete blood count"}},
		{"CT scan of the head", "", []string{"ct head"}},
		{"Contrast-enhanced CT scan of neck", "", []string{"ct neck"}},
		{"Complete blood count with differential & basic metabolic panel", "", []string{"complete blood count with differential", "basic metabolic panel"}},
		{"ESR and CRP", "", []string{"erythrocyte sedimentation rate", "c reactive protein"}},
		{"Ultrasound-guided core biopsy of the right peritonsillar mass, send for immunohistochemistry (CD31, CD34)", "", []string{"biopsy", "immunohistochemistry"}},
		{"MRI of the brain with and without contrast", "", []string{"mri brain"}},
		{"blood cultures x2", "", []string{"blood culture"}},
		{"serum lactate and ammonia", "", []string{"lactate", "ammonia"}},
		{"quantiferon", "", []string{"interferon gamma release assay"}},
		{"the lab's own panel", "liver function tests", []string{"liver function tests"}},
	} {
		t.Run(tc.order, func(t *testing.T) {
			got := p.Price(tc.order, tc.also)
			require.True(t, got.Matched)
			var want []string
			sum := 0.0
			for _, n := range tc.rows {
				r, ok := p.Row(n)
				if !ok { // an alias in the expectation: the row it names
					it, _ := catalogOf(t).Lookup(n)
					r, ok = p.Row(it.Name)
				}
				require.True(t, ok, n)
				want = append(want, r.Name)
				sum += r.USD()
			}
			require.Equal(t, want, got.Rows)
			require.InDelta(t, sum, got.USD, 0.005)
		})
	}
	got := p.Price("serum unobtainium")
	require.False(t, got.Matched)
	require.Empty(t, got.Rows)
	require.Positive(t, got.USD, "the fallback: the median of the category's rows")
	require.Equal(t, got, p.Price("unobtainium level"), "the same category, the same fallback")
}

// catalogOf is the table's names and aliases as a catalog.
func catalogOf(t *testing.T) *catalog.Catalog {
	var items []catalog.Item
	for _, r := range sdbench.Prices.Rows {
		items = append(items, catalog.Item{Name: r.Name, Aliases: r.Aliases})
	}
	c, err := catalog.New(items)
	require.NoError(t, err)
	return c
}

// TestReadPricesRefuses names the file, line and field of a bad row.
func TestReadPricesRefuses(t *testing.T) {
	head := "# a comment\nname,aliases,codes,fees,sources\n"
	for _, tc := range []struct{ name, in, want string }{
		{"a missing fee", "cbc,,85025+85027,7.77,CLFS", "t.csv:3: field fees and sources: 1 and 1 entries for 2 codes"},
		{"an unknown schedule", "cbc,,85025,7.77,OPPS", `t.csv:3: field sources: "OPPS"`},
		{"a zero fee", "cbc,,85025,0,CLFS", `t.csv:3: field fees: "0"`},
		{"a short code", "cbc,,850,7.77,CLFS", `t.csv:3: field codes: "850"`},
		{"a wrong header", "", "t.csv:2: header"},
		{"a row short of a field", "cbc,,85025,7.77", "t.csv:3: 4 fields, want 5"},
		{"an alias taken", "cbc,blood count,85025,7.77,CLFS\nfbc,blood count,85025,7.77,CLFS", `"blood count" of item "fbc" is already used by item "cbc"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := head + tc.in + "\n"
			if tc.name == "a wrong header" {
				in = "# x\nname,codes\n"
			}
			_, err := sdbench.ReadPrices(strings.NewReader(in), "t.csv")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestPriceMatchingIsNotFooledByShortKeys: a name that the catalog's filler
// words leave one word long ("bone scan" is "bone") matches a whole order
// only, never a word inside one.
func TestPriceMatchingIsNotFooledByShortKeys(t *testing.T) {
	p := sdbench.Prices
	require.Equal(t, []string{"bone scan"}, p.Price("bone scan").Rows)
	require.Equal(t, []string{"thyroid fine needle aspiration"}, p.Price("thyroid nodule FNA, ultrasound guided").Rows[:1])
	require.NotContains(t, p.Price("bone age x-ray of the hand").Rows, "bone scan")
	require.Equal(t, []string{"ecg"}, p.Price("12-lead ECG").Rows)
}
