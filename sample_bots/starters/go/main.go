// Command bot is the Go starter bot for Waraq: a gRPC server for waraq.v1.Bot
// (protocol/waraq/v1/bot.proto) that plays Hokm for 2, 3 and 4 players.
//
// Your bot is the function choose, below the line of "=" signs: it gets one
// decision and returns one of its legal actions and a note saying why. The
// rest of this file is the protocol, and you need not touch it: Hello, the
// health service the referee waits on, one Play stream per seat of a match,
// the reply with the request's seq, and a prompt exit on SIGTERM. Or, with
// --connect, the same choose plays the seats a referee's lobby gives it, on
// streams the bot opens itself (dialin.go).
//
//	bot --port N     listen on 127.0.0.1:N (0: any free port; the port is printed)
//	bot --unix PATH  listen on a Unix socket at PATH
//	bot --connect HOST:PORT [--token T] [--tls | --tls-ca PEM]
//	                 dial a referee's lobby (the token defaults to $WARAQ_TOKEN)
//
// Build it with build.sh beside this file (README.md says which Debian packages
// it needs); the binary is bin/bot.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "waraq/v1"
)

// Who the bot says it is (HelloReply): the records and `waraq match` name it so.
const (
	botName    = "go-starter"
	botVersion = "1.0"
	botAuthor  = "Waraq"
)

// ============================================================================
// YOUR BOT: edit choose (and the names above). Nothing below it needs to change.
// ============================================================================

// choose answers one Hokm decision: it returns one of decision.Legal and a
// short note, which the referee records beside the action and `waraq replay`
// shows (at most 1024 bytes: reply cuts a longer one, which the referee would
// refuse as MALFORMED).
//
// decision.Kind says what is asked and decision.Legal lists every legal
// answer; the Action field each one sets depends on the kind:
//
//	TRUMP    GetSuit()     "S", "H", "D" or "C"   the hakem names trump from its first five cards
//	PLAY     GetCard()     "10H"                  a card of the hand that may be played now
//	DISCARD  GetDiscard()  {Cards: ["2C","7D"]}   2 players: lay aside two cards after trump
//	DRAW     GetDraw()     "keep" or "pass"       2 players: keep the stock's top card (view.Offered)?
//	REDEAL   GetAnswer()   true or false          the hakem's five hold no card above 10: ask a new deal?
//	BAM      GetAnswer()   true or false          7 tricks to none: play on for all 13 (true) or stop?
//
// decision.GetHokm() is everything this seat may know: view.Hand, view.Trump,
// view.Trick (the trick so far), view.Tricks (this round's), view.Scores and
// the rest (bot.proto's HokmView). Each request is whole in itself, so choose
// needs no memory between calls; keep some per match (decision.MatchId) if
// you want it, and mind that one process may play several matches at once.
//
// A dial-in bot whose connection drops is sent its pending request again
// (same seq): choose should answer it the same. This one has no randomness;
// if you add some, seed it from decision.MatchId, Seat and Seq (README.md,
// "Dial in"), not once per process or stream.
//
// Taking longer than decision.DeadlineMs plus what is left of decision.BankMs
// is a fault that forfeits the match. An action that is not in decision.Legal,
// or a panic, would be one too: reply, below, answers the first legal action
// instead, with a note that begins "fallback:" and a line in the bot's log.
//
// The strategy here is a placeholder (README.md "What it plays"): replace it.
func choose(decision *pb.DecisionRequest) (*pb.Action, string) {
	view := decision.GetHokm()
	legal := decision.Legal
	switch decision.Kind {
	case "TRUMP":
		// The suit we hold most of; a tie goes to the one listed first.
		best, most := legal[0], -1
		for _, action := range legal {
			if held := countSuit(view.Hand, action.GetSuit()); held > most {
				best, most = action, held
			}
		}
		return best, fmt.Sprintf("trump %s: %d of my %d cards", best.GetSuit(), most, len(view.Hand))
	case "DRAW":
		// Keep a trump or a jack or better; let anything else go.
		if strings.HasSuffix(view.Offered, view.Trump) || isHigh(view.Offered) {
			return answer(legal, (*pb.Action).GetDraw, "keep"), fmt.Sprintf("keep %s: trump or J or better", view.Offered)
		}
		return answer(legal, (*pb.Action).GetDraw, "pass"), fmt.Sprintf("pass %s: no trump, below J", view.Offered)
	case "REDEAL":
		// Asked only when our five cards hold nothing above 10: ask for better.
		return answer(legal, (*pb.Action).GetAnswer, true), "redeal: nothing above 10"
	case "BAM":
		// Take the round now rather than risk it on the last six tricks.
		return answer(legal, (*pb.Action).GetAnswer, false), "no bam: 7 tricks to none is enough"
	}
	// PLAY, DISCARD, and any kind a later protocol adds: the first legal action.
	return legal[0], fmt.Sprintf("%s: first of %d legal", describe(legal[0]), len(legal))
}

// countSuit is how many of cards are of suit ("10H" is a heart: the suit is the last letter).
func countSuit(cards []string, suit string) int {
	n := 0
	for _, card := range cards {
		if strings.HasSuffix(card, suit) {
			n++
		}
	}
	return n
}

// isHigh says whether card ranks J, Q, K or A.
func isHigh(card string) bool {
	return card != "" && strings.ContainsAny(card[:len(card)-1], "JQKA")
}

// answer is the legal action whose field (read by get) is want, or the first
// legal action when none is.
func answer[T comparable](legal []*pb.Action, get func(*pb.Action) T, want T) *pb.Action {
	for _, action := range legal {
		if get(action) == want {
			return action
		}
	}
	return legal[0]
}

// describe spells an action for a note: the value of whichever field it sets.
func describe(action *pb.Action) string {
	switch a := action.GetAction().(type) {
	case *pb.Action_Suit:
		return a.Suit
	case *pb.Action_Card:
		return a.Card
	case *pb.Action_Discard:
		return strings.Join(a.Discard.Cards, " ")
	case *pb.Action_Draw:
		return a.Draw
	case *pb.Action_Answer:
		return fmt.Sprint(a.Answer)
	}
	return fmt.Sprintf("%v", action)
}

// ============================================================================
// The protocol. bot.proto and docs/protocol.md are the contract it follows.
// ============================================================================

const (
	protocolVersion = 1
	// How long SIGTERM waits for open Play streams before cutting them: the
	// referee sends SIGKILL 3 s after SIGTERM.
	stopGrace = time.Second
)

// hello is who the bot is and what it plays: the Hello answer, and the
// first message of each stream a dial-in bot opens.
func hello() *pb.HelloReply {
	return &pb.HelloReply{
		Name:            botName,
		Version:         botVersion,
		Author:          botAuthor,
		Games:           []*pb.GameSupport{{Game: "hokm", Players: []uint32{2, 3, 4}}},
		ProtocolVersion: protocolVersion,
	}
}

type server struct {
	pb.UnimplementedBotServer
}

func (server) Hello(_ context.Context, _ *pb.HelloRequest) (*pb.HelloReply, error) {
	return hello(), nil
}

// Play serves one seat of one match. gRPC runs each stream on its own
// goroutine, so nothing here is shared.
func (server) Play(stream pb.Bot_PlayServer) error {
	_, err := playSeat(stream, nil)
	return err
}

// seatStream is one seat's stream, whoever opened it: a Play stream the
// referee called, or a Dial stream this bot opened (dialin.go). Both carry
// the same messages.
type seatStream interface {
	Send(*pb.BotMessage) error
	Recv() (*pb.RefereeMessage, error)
}

// playSeat plays one seat: start, a reply to each decision, end. It returns
// when the referee ends the stream (a nil error) or the stream breaks, with
// the seat's MatchStart (nil if none came). seated, if given, is told each
// MatchStart as it arrives.
func playSeat(stream seatStream, seated func(*pb.MatchStart)) (*pb.MatchStart, error) {
	var start *pb.MatchStart
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return start, nil // the referee closed its side: the match is over or aborted
		}
		if err != nil {
			return start, err
		}
		switch body := message.Body.(type) {
		case *pb.RefereeMessage_Start:
			start = body.Start
			if seated != nil {
				seated(start)
			}
		case *pb.RefereeMessage_Decision:
			reply, err := reply(body.Decision)
			if err != nil {
				return start, err
			}
			err = stream.Send(&pb.BotMessage{Body: &pb.BotMessage_Reply{Reply: reply}})
			// io.EOF: a Dial stream the referee has ended; the next Recv says how.
			if err != nil && err != io.EOF {
				return start, err
			}
		case *pb.RefereeMessage_End:
			if start != nil { // stdout goes to the bot's log file (docs/protocol.md)
				fmt.Printf("%s: match %s seat %d ended by %s, score %v\n",
					botName, start.MatchId, start.Seat, body.End.Reason, body.End.Score)
			}
		}
	}
}

// reply is choose's answer, carrying the request's seq as the referee requires.
// When choose panics or answers what is not legal, the first legal action
// stands in, so that a slip in choose costs a decision rather than the match.
func reply(decision *pb.DecisionRequest) (*pb.DecisionReply, error) {
	if len(decision.Legal) == 0 {
		// Hand's TURN lists none; Hello offers only Hokm, which always lists them.
		return nil, status.Errorf(codes.Unimplemented,
			"%s: seq %d asks %s with no legal actions listed; this bot plays only decisions that list them",
			botName, decision.Seq, decision.Kind)
	}
	action, note, problem := chooseSafely(decision)
	if problem == "" && !isLegal(action, decision.Legal) {
		problem = fmt.Sprintf("choose answered %s, which is not one of the %d legal", describe(action), len(decision.Legal))
	}
	if problem != "" {
		fmt.Fprintf(os.Stderr, "%s: match %s seq %d (%s): %s\n", botName, decision.MatchId, decision.Seq, decision.Kind, problem)
		action, note = decision.Legal[0], "fallback: "+problem
	}
	return &pb.DecisionReply{Seq: decision.Seq, Action: action, Note: cutNote(note)}, nil
}

// noteLimit is the referee's: a longer note is a MALFORMED reply.
const noteLimit = 1024

// cutNote keeps the first noteLimit bytes of note, cut on a character's boundary.
func cutNote(note string) string {
	if len(note) <= noteLimit {
		return note
	}
	end := noteLimit
	for end > 0 && !utf8.RuneStart(note[end]) {
		end--
	}
	return note[:end]
}

// chooseSafely is choose, with a panic caught and told in problem (its stack goes to the log).
func chooseSafely(decision *pb.DecisionRequest) (action *pb.Action, note string, problem string) {
	defer func() {
		if caught := recover(); caught != nil {
			fmt.Fprintf(os.Stderr, "%s: choose panicked: %v\n%s", botName, caught, debug.Stack())
			problem = fmt.Sprintf("choose panicked: %v", caught)
		}
	}()
	action, note = choose(decision)
	return action, note, ""
}

// isLegal says whether action is one of legal; a DISCARD's two cards may come in any order.
func isLegal(action *pb.Action, legal []*pb.Action) bool {
	for _, option := range legal {
		if proto.Equal(action, option) || (action.GetDiscard() != nil && sameCards(action.GetDiscard(), option.GetDiscard())) {
			return true
		}
	}
	return false
}

func sameCards(a, b *pb.Cards) bool {
	if b == nil || len(a.Cards) != len(b.Cards) {
		return false
	}
	x, y := append([]string(nil), a.Cards...), append([]string(nil), b.Cards...)
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func listen(port int, unix string) (net.Listener, error) {
	if unix != "" {
		return net.Listen("unix", unix)
	}
	if port < 0 {
		return nil, fmt.Errorf("give --port N, --unix PATH or --connect HOST:PORT")
	}
	// IPv4 loopback: the referee, and socat in its sandbox, dial 127.0.0.1.
	return net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
}

func main() {
	port := flag.Int("port", -1, "TCP port on 127.0.0.1 (0: any free port)")
	unix := flag.String("unix", "", "listen on this Unix socket path instead of TCP")
	connect := flag.String("connect", "", "dial this referee's lobby (HOST:PORT) instead of listening")
	// Not the flag's default: --help would print the token.
	token := flag.String("token", "",
		"with --connect: the bot's token (default: $WARAQ_TOKEN, which keeps it out of the process list)")
	useTLS := flag.Bool("tls", false, "with --connect: dial over TLS, trusting the system's CAs")
	tlsCA := flag.String("tls-ca", "", "with --connect: dial over TLS, trusting this PEM certificate")
	flag.Parse()

	if *connect != "" {
		if *port >= 0 || *unix != "" {
			fmt.Fprintf(os.Stderr, "%s: --connect dials out: give it without --port or --unix\n", botName)
			os.Exit(2)
		}
		if *token == "" {
			*token = os.Getenv("WARAQ_TOKEN")
		}
		if *token == "" {
			fmt.Fprintf(os.Stderr, "%s: --connect needs --token or $WARAQ_TOKEN\n", botName)
			os.Exit(2)
		}
		if err := dialIn(*connect, *token, *useTLS, *tlsCA); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", botName, err)
			os.Exit(1)
		}
		return
	}

	listener, err := listen(*port, *unix)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", botName, err)
		os.Exit(2)
	}
	grpcServer := grpc.NewServer()
	pb.RegisterBotServer(grpcServer, server{})
	checks := health.NewServer() // "" is SERVING from the start: the referee's readiness check
	healthpb.RegisterHealthServer(grpcServer, checks)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		checks.Shutdown()
		timer := time.AfterFunc(stopGrace, grpcServer.Stop)
		grpcServer.GracefulStop()
		timer.Stop()
	}()

	if addr, ok := listener.Addr().(*net.TCPAddr); ok {
		fmt.Printf("%s bot serving waraq.v1.Bot on port %d\n", botName, addr.Port)
	} else {
		fmt.Printf("%s bot serving waraq.v1.Bot on unix:%s\n", botName, *unix)
	}
	if err := grpcServer.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", botName, err)
		os.Exit(1)
	}
}
