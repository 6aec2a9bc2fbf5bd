// ProduceConsume writes records with Kafka's own idempotent producer, then
// reads them back with its consumer (assigned partitions, no group), for
// kafkatest's TestJavaClientsOnSim:
//
//	java -cp '<kafka lib>/*' ProduceConsume.java BOOTSTRAP TOPIC PARTITIONS RECORDS COMPRESSION [PAUSE_MICROS]
//
// With PAUSE_MICROS it pauses that long after each send (a steady rate
// while the test moves the cluster's leaders).
// It prints one line per record acknowledged, "acked <value> <partition>
// <offset>", then one per record read, "read <value> <partition> <offset>";
// between the two it prints "produced" on stderr (its producer closed).
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ProduceConsume {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1];
        int partitions = Integer.parseInt(args[2]), records = Integer.parseInt(args[3]);
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap);
        pp.put("enable.idempotence", "true");
        pp.put("acks", "all");
        pp.put("compression.type", args[4]);
        pp.put("linger.ms", "5");
        pp.put("key.serializer", StringSerializer.class.getName());
        pp.put("value.serializer", StringSerializer.class.getName());
        long pause = args.length > 5 ? Long.parseLong(args[5]) * 1000 : 0;
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
            for (int i = 0; i < records; i++) {
                acks.add(p.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i)));
                if (pause > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(pause);
                }
            }
            p.flush();
            for (int i = 0; i < records; i++) {
                RecordMetadata m = acks.get(i).get();
                System.out.printf("acked v%d %d %d%n", i, m.partition(), m.offset());
            }
        }
        // The test moves leaders only while the producer writes: the consumer
        // reads a settled cluster.
        System.err.println("produced");
        System.err.flush();
        Properties cp = new Properties();
        cp.put("bootstrap.servers", bootstrap);
        cp.put("enable.auto.commit", "false");
        cp.put("key.deserializer", StringDeserializer.class.getName());
        cp.put("value.deserializer", StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            c.assign(tps);
            c.seekToBeginning(tps);
            int read = 0;
            long deadline = System.currentTimeMillis() + 30_000;
            while (read < records && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    System.out.printf("read %s %d %d%n", r.value(), r.partition(), r.offset());
                    read++;
                }
            }
        }
    }
}
