package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// v8 is a running `node bench/v8/wasmspeed.mjs`: the module in V8 behind the JS bridge, the
// engine started and the footer read once, answering one scan per line written to it.
type v8 struct {
	cmd       *exec.Cmd
	in        io.WriteCloser
	out       *bufio.Scanner
	batchRows int
}

type v8Answer struct {
	Ready    bool    `json:"ready"`
	Browser  string  `json:"browser"` // the chromium engine's version
	Seconds  float64 `json:"seconds"`
	CPU      float64 `json:"cpuSeconds"`
	IPCBytes int64   `json:"ipcBytes"`
	Error    string  `json:"error"`
}

func startV8(node, script, file, module string, batchRows int) (*v8, error) {
	args := []string{script, file}
	if module != "" {
		args = append(args, module)
	}
	cmd := exec.Command(node, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("wasmspeed: starting %s: %w", node, err)
	}
	v := &v8{cmd: cmd, in: in, out: bufio.NewScanner(stdout), batchRows: batchRows}
	if a, err := v.answer(); err != nil || !a.Ready {
		v.close()
		return nil, fmt.Errorf("wasmspeed: %s did not start: %v", script, err)
	} else if a.Browser != "" {
		fmt.Printf("%s: Chromium %s\n", script, a.Browser)
	}
	return v, nil
}

func (v *v8) answer() (v8Answer, error) {
	var a v8Answer
	if !v.out.Scan() {
		return a, fmt.Errorf("node exited: %v", v.out.Err())
	}
	if err := json.Unmarshal(v.out.Bytes(), &a); err != nil {
		return a, fmt.Errorf("node answered %q: %w", v.out.Text(), err)
	}
	if a.Error != "" {
		return a, fmt.Errorf("node: %s", a.Error)
	}
	return a, nil
}

// scan runs one scan of the given columns (nil: all) in node, with the batch size if set; the time is node's own
// measurement of the scan (process start, module compile and footer read excluded), and the
// CPU time node's process used meanwhile (process.cpuUsage: all its threads).
func (v *v8) scan(cols []string) (result, error) {
	if cols == nil {
		cols = []string{}
	}
	b, _ := json.Marshal(struct {
		Columns   []string `json:"columns"`
		BatchRows int      `json:"batchRows,omitempty"`
	}{cols, v.batchRows})
	if _, err := v.in.Write(append(b, '\n')); err != nil {
		return result{}, err
	}
	a, err := v.answer()
	if err != nil {
		return result{}, err
	}
	return result{time.Duration(a.Seconds * float64(time.Second)), time.Duration(a.CPU * float64(time.Second)), a.IPCBytes}, nil
}

func (v *v8) close() {
	_ = v.in.Close()
	_ = v.cmd.Wait()
}
