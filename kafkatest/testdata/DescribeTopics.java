// DescribeTopics describes topics with Kafka's own Admin client, one line
// per partition, for kafkatest's TestJavaAdminDescribesSim:
//
//	java -cp '<kafka lib>/*' DescribeTopics.java BOOTSTRAP LIMIT TOPIC...
//
// LIMIT is DescribeTopicsOptions.partitionSizeLimitPerResponse: the
// partitions per DescribeTopicPartitions answer, whose cursor the client
// follows. Each line: topic partition leader isr elr lastKnownElr replicas
// (broker ids joined by commas, "-" for none).
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartitionInfo;

public class DescribeTopics {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("request.timeout.ms", "10000");
        props.put("default.api.timeout.ms", "30000");
        List<String> topics = List.of(args).subList(2, args.length);
        DescribeTopicsOptions opts = new DescribeTopicsOptions().partitionSizeLimitPerResponse(Integer.parseInt(args[1]));
        try (Admin admin = Admin.create(props)) {
            Map<String, TopicDescription> got = admin.describeTopics(TopicCollection.ofTopicNames(topics), opts).allTopicNames().get();
            for (String topic : topics) {
                for (TopicPartitionInfo p : got.get(topic).partitions()) {
                    System.out.printf("%s %d %s %s %s %s %s%n", topic, p.partition(),
                        p.leader() == null ? "-" : Integer.toString(p.leader().id()),
                        ids(p.isr()), ids(p.elr()), ids(p.lastKnownElr()), ids(p.replicas()));
                }
            }
        }
    }

    static String ids(List<Node> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            return "-";
        }
        return nodes.stream().map(n -> Integer.toString(n.id())).sorted().collect(Collectors.joining(","));
    }
}
