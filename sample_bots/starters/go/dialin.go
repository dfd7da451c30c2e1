// Dialling in (--connect): the same choose, on streams this bot opens to a
// referee's lobby instead of streams the referee opens to it. For a bot
// behind NAT, or whose code stays on its author's machine. The contract is
// the comment on service Lobby in bot.proto; nothing here needs to change
// for your bot.
//
// One Dial stream offers one seat. The bot keeps one spare stream waiting;
// when a stream gets its MatchStart it opens another, so a match that seats
// the bot twice (or two matches at once) finds a stream for each seat. A
// stream that breaks mid-match is dialled again with its match and seat, and
// the referee sends the MatchStart and the pending request again.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	pb "waraq/v1"
)

// The wait before dialling again after a stream broke: it doubles up to
// mostWait, and starts over after a stream that stood mostWait or longer
// (a fresh drop, not a lobby that keeps failing).
const (
	firstWait = 500 * time.Millisecond
	mostWait  = 30 * time.Second
)

// refusals are the statuses after which dialling again cannot help: the bot
// stops, saying which.
var refusals = map[codes.Code]string{
	codes.Unauthenticated:    "UNAUTHENTICATED",     // no bot holds this token
	codes.FailedPrecondition: "FAILED_PRECONDITION", // this bot is connected from another address
}

// seatGone are the statuses that end a seat for good: its grace is over, or a
// newer stream took it back. Dialling again for it would be refused.
// UNIMPLEMENTED is this bot's own (reply: a decision it cannot answer).
var seatGone = map[codes.Code]bool{codes.NotFound: true, codes.Aborted: true, codes.Unimplemented: true}

// lobbyLine is what all of the bot's Dial streams share.
type lobbyLine struct {
	client  pb.LobbyClient
	address string
	token   string
	seated  chan struct{} // a spare stream was given a seat: open another
	refused chan error    // the first refusal stops the bot
}

// dialIn plays the seats the lobby at address gives this bot until SIGTERM or
// SIGINT (nil), or until the lobby refuses the bot (the error says why).
func dialIn(address, token string, useTLS bool, tlsCA string) error {
	security := grpc.WithInsecure()
	if useTLS || tlsCA != "" {
		trust := credentials.NewTLS(&tls.Config{}) // the system's CAs
		if tlsCA != "" {
			var err error
			if trust, err = credentials.NewClientTLSFromFile(tlsCA, ""); err != nil {
				return fmt.Errorf("--tls-ca %s: %v", tlsCA, err)
			}
		}
		security = grpc.WithTransportCredentials(trust)
	}
	// Pings while the streams wait for a seat keep a NAT's mapping open and
	// find a dead connection; the lobby allows one every 5 s.
	pings := grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 20 * time.Second, PermitWithoutStream: true})
	conn, err := grpc.Dial(address, security, pings) // connects on the first stream, not here
	if err != nil {
		return fmt.Errorf("--connect %s: %v", address, err)
	}
	defer conn.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	rand.Seed(time.Now().UnixNano()) // for the back-off's jitter: bots that dropped together dial apart
	line := &lobbyLine{
		client:  pb.NewLobbyClient(conn),
		address: address,
		token:   token,
		seated:  make(chan struct{}),
		refused: make(chan error, 1),
	}
	fmt.Printf("%s bot dialling %s\n", botName, address)
	go line.offer(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil // open matches end with the process: the referee holds their seats for the grace
		case err := <-line.refused:
			return err
		case <-line.seated:
			go line.offer(ctx)
		}
	}
}

// offer keeps one seat offer open, dialling again after a drop; once seated,
// it plays the seat to its end, dialling back for that seat if the stream
// breaks mid-match.
func (line *lobbyLine) offer(ctx context.Context) {
	wait := firstWait
	var seat *pb.MatchStart // the seat this offer holds, once its MatchStart came
	for {
		opened := time.Now()
		start, err := line.oneStream(ctx, seat)
		if ctx.Err() != nil {
			return // the bot is stopping
		}
		code := status.Code(err)
		if refusal, ok := refusals[code]; ok {
			line.refuse(fmt.Errorf("the lobby at %s refused this bot: %s: %s",
				line.address, refusal, status.Convert(err).Message()))
			return
		}
		if start != nil && err == nil {
			return // the match is over for this seat
		}
		if start != nil && seatGone[code] {
			fmt.Fprintf(os.Stderr, "%s: lobby: match %s seat %d is gone: %s\n",
				botName, start.MatchId, start.Seat, status.Convert(err).Message())
			return
		}
		seat = start
		if time.Since(opened) >= mostWait {
			wait = firstWait
		}
		fmt.Fprintf(os.Stderr, "%s: lobby: %s (%s), dialling again in %.1f s\n",
			botName, code, status.Convert(err).Message(), wait.Seconds())
		jitter := 0.8 + 0.4*rand.Float64()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(float64(wait) * jitter)):
		}
		if wait *= 2; wait > mostWait {
			wait = mostWait
		}
	}
}

// oneStream dials once and plays what the stream brings until it ends: a new
// seat offer, or with resume the seat of that MatchStart taken back. It
// returns the seat the stream held (nil if none) and how the stream ended
// (nil: the referee ended it with OK).
func (line *lobbyLine) oneStream(ctx context.Context, resume *pb.MatchStart) (*pb.MatchStart, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream on this side too, whatever ended it
	stream, err := line.client.Dial(ctx)
	if err != nil {
		return resume, err
	}
	dial := &pb.Dial{Token: line.token, Hello: hello()}
	if resume != nil {
		dial.MatchId, dial.Seat = resume.MatchId, resume.Seat
	}
	// An error here is io.EOF, the stream ended by the lobby: the first Recv says why.
	_ = stream.Send(&pb.BotMessage{Body: &pb.BotMessage_Dial{Dial: dial}})
	newSeat := resume == nil
	start, err := playSeat(stream, func(*pb.MatchStart) {
		if newSeat {
			newSeat = false
			line.tookSeat(ctx)
		}
	})
	if start == nil {
		start = resume
	}
	return start, err
}

// tookSeat asks for another spare stream: this one now plays a seat.
func (line *lobbyLine) tookSeat(ctx context.Context) {
	select {
	case line.seated <- struct{}{}:
	case <-ctx.Done():
	}
}

func (line *lobbyLine) refuse(err error) {
	select {
	case line.refused <- err:
	default: // another stream's refusal already stops the bot
	}
}
