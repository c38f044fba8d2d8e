package main

// examples are the --help examples of the commands that do not carry their
// own (cobra.Command.Example), by command path without "clinevo ". finish
// applies them; TestHelp fails on a runnable command with none.
var examples = map[string]string{
	"experiment plan": `  clinevo experiment plan experiments/quick.yaml
  clinevo --config models.yaml experiment plan experiments/methods.yaml --json`,
	"export inspect": `  clinevo export inspect quick-E1 --out inspect-logs/`,
	"roles check": `  clinevo --config models.yaml roles check
  clinevo --config models.yaml roles check experiments/quick.yaml --json`,
	"corpus gen": `  clinevo corpus gen --out corpora/
  clinevo corpus gen --benchmark NAME --seed 7 --out corpora/NAME/   # NAME: see --benchmark`,
	"corpus import": `  clinevo corpus import agentclinic agentclinic_medqa.jsonl --out cases.jsonl
  clinevo corpus import agentclinic agentclinic_medqa.jsonl --out cases.jsonl --skip-invalid
  clinevo corpus import ddxplus release_test_patients.csv --out ddxplus.jsonl
  clinevo corpus import ddxplus patients.csv --file evidences=dict/release_evidences.json --file conditions=dict/release_conditions.json --out ddxplus.jsonl`,
	"demo": `  clinevo demo
  clinevo demo --cases 40 --stage-size 10 --dir /tmp/demo`,
	"episode history": `  clinevo episode history quick-E1/p1/s01/e0001-stream-0007 --out e1.json
  clinevo episode history quick-E1/stream`,
	"episode run": `  clinevo episode run --case stream-0001
  clinevo episode run --case stream-0001 --profile NAME --json   # NAME: see --profile`,
	"experiment rescore": `  clinevo --config judge-b.yaml experiment rescore quick --variant judge-b`,
	"experiment resume": `  clinevo experiment resume quick
  clinevo experiment resume quick --file experiments/quick.yaml`,
	"experiment run": `  clinevo experiment run experiments/quick.yaml
  clinevo experiment run experiments/quick.yaml --wait`,
	"memory export": `  clinevo memory export --out cards.jsonl
  clinevo memory export --run quick-E1 > e1-cards.jsonl`,
	"memory import": `  clinevo memory --memory-backend qdrant import cards.jsonl
  clinevo memory import cards.jsonl --replace   # and change the cards the bank holds under the same IDs`,
	"stream terminate":     `  clinevo stream terminate r1 --reason "case 病例-0002 wedged its episode"`,
	"experiment terminate": `  clinevo experiment terminate quick --reason "the endpoint's quota ran out"`,
	"evaluation terminate": `  clinevo evaluation terminate quick-H0 --reason "stuck on a model that no longer answers"
  clinevo evaluation terminate r1/eval-s02 --reason "stuck"`,
	"memory show": `  clinevo memory show 5f0c2a4e-8d1b-5c52-9a57-0f7a3c1d2e4b
  clinevo memory show 5f0c2a4e-8d1b-5c52-9a57-0f7a3c1d2e4b --json`,
	"memory stats": `  clinevo memory stats
  clinevo memory stats --run quick-E1 --json`,
	"stream pause":   `  clinevo stream pause r1`,
	"stream resume":  `  clinevo stream resume r1`,
	"stream stop":    `  clinevo stream stop r1`,
	"stream restart": `  clinevo stream restart r1 --wait`,
	"stream size": `  clinevo stream size r1
  clinevo stream size r1 --json`,
	"stream start": `  clinevo stream start --run r1 --limit 100 --stage-size 25 --wait
  clinevo stream start --run r2 --memory-mode carry --carry-from r1
  clinevo stream start --run k1 --profile NAME --corpus CORPUS   # a benchmark and one of its corpora`,
	"stream timing": `  clinevo stream timing r1
  clinevo stream timing r1 --json`,
	"view": `  clinevo view                      # http://127.0.0.1:7280/
  clinevo view --port 9000 --temporal-ui http://127.0.0.1:8233
  CLINEVO_VIEW_TOKEN=secret clinevo view --listen 0.0.0.0:7280`,
}
