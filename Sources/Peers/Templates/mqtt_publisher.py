"""The bench's MQTT peer: paho-mqtt publishing the same batch payloads as
Waymark's MQTT sink, at QoS 1 and one message in flight (as the sink sends
them), to the same broker. Prints samples per second.

usage: mqtt_publisher.py PORT USER PASSWORD PAYLOADS SAMPLES
PAYLOADS holds one JSON batch per line; SAMPLES is how many samples they hold."""
import sys
import time

import paho.mqtt.client as mqtt


def main():
    port, user, password, path, samples = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    with open(path, "rb") as f:
        payloads = [line.rstrip(b"\n") for line in f if line.strip()]
    client = mqtt.Client(client_id="paho-bench", clean_session=True)
    client.username_pw_set(user, password)
    client.connect("127.0.0.1", port, keepalive=60)
    client.loop_start()
    start = time.perf_counter()
    for payload in payloads:
        client.publish("bench/paho/samples", payload, qos=1).wait_for_publish()
    elapsed = time.perf_counter() - start
    client.loop_stop()
    client.disconnect()
    print(samples / elapsed, "samples/s")


main()
