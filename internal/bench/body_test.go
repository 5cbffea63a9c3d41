package bench

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/protocol"
)

func TestBodyRoundTrip(t *testing.T) {
	b := Body{From: "agent-07", Seq: 42, Sent: 1732197000123456789}
	s := b.String()
	if s != "tlbench from=agent-07 seq=42 sent=1732197000123456789" {
		t.Fatalf("Body.String() = %q", s)
	}
	got, ok := ParseBody("  " + s + " ")
	if !ok || got != b {
		t.Fatalf("ParseBody(%q) = %+v, %v; want %+v", s, got, ok, b)
	}
}

func TestParseBodyRejects(t *testing.T) {
	for _, s := range []string{
		"",
		"relayed m-12 to agent-01",
		"tlbench",
		"tlbench from=a seq=1",
		"tlbench from= seq=1 sent=2",
		"tlbench from=a seq=-1 sent=2",
		"tlbench from=a seq=x sent=2",
		"tlbench from=a seq=1 sent=2 extra=3",
		"tlbench seq=1 from=a sent=2",
	} {
		if b, ok := ParseBody(s); ok {
			t.Errorf("ParseBody(%q) = %+v, want rejection", s, b)
		}
	}
}

// The envelope an agent prints must be a valid message to the parser and
// the Team Lead, and must not look like a request to write code.
func TestAppendEnvelopeIsAValidMessage(t *testing.T) {
	b := Body{From: "agent-00", Seq: 3, Sent: 99}
	raw := AppendEnvelope(nil, "agent-01", b)
	// The terminal turns "\n" into CRLF.
	evs := protocol.Parse(strings.ReplaceAll(string(raw), "\n", "\r\n"))
	if len(evs) != 1 || evs[0].Kind != protocol.KindEnvelope {
		t.Fatalf("parsed %+v, want one envelope", evs)
	}
	env := evs[0].Envelope
	if p := protocol.Problems(&env, evs[0].HasBody); len(p) > 0 {
		t.Fatalf("envelope refused: %v", p)
	}
	if env.Get("to") != "agent-01" {
		t.Errorf("to = %q", env.Get("to"))
	}
	if got, ok := ParseBody(env.Body); !ok || got != b {
		t.Errorf("body %q decodes to %+v, %v", env.Body, got, ok)
	}
	if lead.CodingRequest(env.Body) {
		t.Errorf("body %q reads as a coding request", env.Body)
	}
}

func TestLineScanner(t *testing.T) {
	var sc LineScanner
	var got []string
	fn := func(l []byte) { got = append(got, string(l)) }
	// Split anywhere, CRLF, bare CR (Enter typed by the console), blank lines.
	for _, chunk := range []string{"[RO", "UTE]\r", "\nto: a\r", "\r\r", "body: x", " y\rtail"} {
		sc.Feed([]byte(chunk), fn)
	}
	want := []string{"[ROUTE]", "to: a", "body: x y"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}
	got = nil
	sc.Feed([]byte("\n"), fn)
	if len(got) != 1 || got[0] != "tail" {
		t.Errorf("pending line %q, want tail", got)
	}
}

func TestLineScannerBoundsALongLine(t *testing.T) {
	var sc LineScanner
	var n int
	sc.Feed([]byte(strings.Repeat("x", 3*maxLine)), func([]byte) {})
	sc.Feed([]byte("\n"), func(l []byte) { n = len(l) })
	if n != maxLine {
		t.Errorf("line of %d bytes, want it cut at %d", n, maxLine)
	}
}

func TestResultFileRoundTrip(t *testing.T) {
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	a1 := Arrival{Body: Body{From: "agent-01", Seq: 0, Sent: 100}, Arrived: 350, ID: "m-7"}
	a2 := Arrival{Body: Body{From: "agent-01", Seq: 1, Sent: 200}, Arrived: 260, ID: "-"}
	writeArrival(w, a1)
	writeArrival(w, a2)
	writeTotals(w, 2, 1, true, 3)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	res, err := ReadAgentResult(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 2 || res.Acks != 1 || !res.Complete || res.Notices != 3 || len(res.Arrivals) != 2 || res.Arrivals[0] != a1 || res.Arrivals[1] != a2 {
		t.Errorf("read back %+v", res)
	}
	if a1.Latency() != 250 {
		t.Errorf("latency %d, want 250", a1.Latency())
	}
	if _, err := ReadAgentResult(strings.NewReader("r agent-01 0 1 2 m-1\n")); err == nil {
		t.Error("a file without totals was accepted")
	}
	if _, err := ReadAgentResult(strings.NewReader("r agent-01 zero 1 2 m-1\ns 1 1 true\n")); err == nil {
		t.Error("a bad line was accepted")
	}
}

func TestAgentConfigEnvRoundTrip(t *testing.T) {
	want := agentConfig{Name: "agent-03", To: "agent-04", Dir: t.TempDir(), Count: 500, Expect: 499, Acks: 500,
		Period: 20e6, Phase: 3e6}
	for k, v := range want.env() {
		t.Setenv(k, v)
	}
	got, err := agentConfigFromEnv()
	if err != nil || got != want {
		t.Fatalf("agentConfigFromEnv() = %+v, %v; want %+v", got, err, want)
	}
	t.Setenv(envPeriod, "0")
	if _, err := agentConfigFromEnv(); err == nil {
		t.Error("a zero period was accepted")
	}
	t.Setenv(envPeriod, "20000000")
	t.Setenv(envCount, "many")
	if _, err := agentConfigFromEnv(); err == nil {
		t.Error("a bad count was accepted")
	}
}

// configs spreads the agents' first sends evenly over one period and
// chains them in a ring.
func TestRelayConfigs(t *testing.T) {
	o := RelayOptions{Dir: "/d", Agents: 4, Rate: 50, Count: 10, Mode: EngineRelay}
	cs := o.configs()
	for i, c := range cs {
		if c.Name != agentName(i) || c.To != agentName((i+1)%4) || c.Period != 20e6 || c.Phase != time.Duration(5e6*i) ||
			c.Count != 10 || c.Expect != 10 || c.Acks != 10 {
			t.Errorf("config %d: %+v", i, c)
		}
	}
	o.Mode = BareRelay
	if o.configs()[0].Acks != 0 {
		t.Error("the bare relay waits for acknowledgements it never sends")
	}
}
